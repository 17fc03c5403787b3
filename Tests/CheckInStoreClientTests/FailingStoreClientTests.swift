import CheckInModels
import CheckInStoreClient
import TestSupport
import XCTest

/// The store's test values: every call is reported as unexpected and fails with a store failure
/// naming the call, so a test cannot run on a stored value it never set up.
final class FailingStoreClientTests: XCTestCase {
    /// Runs `call`, which must throw a failure naming `name`, reported once.
    private func assertFails(_ name: String, _ call: () async throws(StoreFailure) -> Void,
                             file: StaticString = #filePath, line: UInt = #line) async {
        let new = await unexpectedCalls {
            do {
                try await call()
                XCTFail("\(name) did not fail", file: file, line: line)
            } catch {
                XCTAssertTrue("\(error)".contains(name), "\(error)", file: file, line: line)
            }
        }
        XCTAssertEqual(new.count, 1, "\(name): \(new)", file: file, line: line)
        XCTAssertTrue(new.first?.contains(name) == true, "\(new)", file: file, line: line)
    }

    func testEveryCallOfTheFailingCheckInStoreIsReported() async {
        let store = CheckInStoreClient.failing
        let new = NewCheckIn(id: CheckInID(high: 1, low: 1), at: DeviceInstant(wall: WallTime(microsecondsSinceEpoch: 0),
                             uptime: .zero, bootID: "b", wallClockSynchronized: false), source: .cli)
        await assertFails("CheckInStoreClient.record") { () throws(StoreFailure) in _ = try await store.record(new) }
        await assertFails("CheckInStoreClient.history") { () throws(StoreFailure) in _ = try await store.history(1) }
        await assertFails("CheckInStoreClient.loadSettings") { () throws(StoreFailure) in _ = try await store.loadSettings() }
        await assertFails("CheckInStoreClient.saveSettings") { () throws(StoreFailure) in
            try await store.saveSettings(StoredSettings(settings: .default, version: 1, appliedFromConfig: nil))
        }
        await assertFails("CheckInStoreClient.pendingUploadCount") { () throws(StoreFailure) in _ = try await store.pendingUploadCount() }
        await assertFails("CheckInStoreClient.reanchorWallTimes") { () throws(StoreFailure) in _ = try await store.reanchorWallTimes(new.at) }
        await assertFails("CheckInStoreClient.recordAnsweringPings") { () throws(StoreFailure) in
            _ = try await store.recordAnsweringPings(new, [])
        }
        await assertFails("CheckInStoreClient.savePings") { () throws(StoreFailure) in _ = try await store.savePings([]) }
        await assertFails("CheckInStoreClient.pendingPings") { () throws(StoreFailure) in _ = try await store.pendingPings() }
    }

    func testEveryCallOfTheOtherFailingStoreClientsIsReported() async {
        let notifications = NotificationStoreClient.failing
        await assertFails("NotificationStoreClient.load") { () throws(StoreFailure) in _ = try await notifications.load() }
        await assertFails("NotificationStoreClient.cursor") { () throws(StoreFailure) in _ = try await notifications.cursor() }
        await assertFails("NotificationStoreClient.pendingChanges") { () throws(StoreFailure) in
            _ = try await notifications.pendingChanges(5)
        }
        let maintenance = StoreMaintenanceClient.failing
        await assertFails("StoreMaintenanceClient.probe") { () throws(StoreFailure) in _ = try await maintenance.probe() }
        await assertFails("StoreMaintenanceClient.recover") { () throws(StoreFailure) in _ = try await maintenance.recover() }
        let alerts = AlertStoreClient.failing
        await assertFails("AlertStoreClient.pending") { () throws(StoreFailure) in _ = try await alerts.pending() }
        let queue = UploadQueueClient<CheckInRecord>.failing("checkInQueue")
        await assertFails("checkInQueue.pending") { () throws(StoreFailure) in _ = try await queue.pending(10) }
        await assertFails("checkInQueue.depth") { () throws(StoreFailure) in _ = try await queue.depth() }
        await assertFails("checkInQueue.markUploaded") { () throws(StoreFailure) in
            _ = try await queue.markUploaded([], WallTime(microsecondsSinceEpoch: 0))
        }
        await assertFails("checkInQueue.refusedCount") { () throws(StoreFailure) in _ = try await queue.refusedCount() }
    }
}
