import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import DeviceConfig
import DeviceFeature
import StoreHealthFeature
import TestSupport
import GPIOClient
import XCTest

/// What the device decides is worth logging: a line when a condition appears (at its severity)
/// and when it clears, and the features' own lines.
final class LogTests: XCTestCase {
    private func state() -> DeviceFeature.State {
        DeviceFeature.initialState(DeviceConfiguration(storePath: "/s/x.sqlite", controlSocket: "/r/x.sock"),
                                   chipDescription: "chip 'gpiochip0'")
    }

    func testAConditionIsLoggedOnceWhenItAppearsAndOnceWhenItClears() {
        let before = state()
        var after = before
        let full = StoreFailure(.full, "cannot write /s/x.sqlite: disk full")
        after.store.problem = StoreProblem(full, since: WallTime(secondsSinceEpoch: 1_795_000_000))
        let appeared = DeviceFeature.log(.store(.operationFailed(full)), before: before, after: after)
        XCTAssertEqual(appeared.filter { $0.metadata["condition"] != nil }.map(\.level), [.error])
        XCTAssertEqual(appeared.first { $0.metadata["condition"] != nil }?.message, full.message)

        // The same condition again (a second refused press) says nothing new.
        XCTAssertEqual(DeviceFeature.log(.store(.operationFailed(full)), before: after, after: after)
            .filter { $0.metadata["condition"] != nil }, [])

        var cleared = after
        cleared.store.problem = nil
        let gone = DeviceFeature.log(.store(.writeSucceeded), before: after, after: cleared)
        XCTAssertTrue(gone.contains { $0.level == .notice && $0.message == "cleared: \(full.message)" }, "\(gone)")
    }

    func testACheckInThatWasNotStoredIsAnErrorAndAStoredOneANotice() {
        let failure = StoreFailure(.full, "disk full")
        let notStored = CheckInFeature.log(.delegate(.checkInFailed(failure)), before: state().checkIn, after: state().checkIn)
        XCTAssertEqual(notStored.map(\.level), [.error])
        XCTAssertTrue(notStored.first?.message.contains("NOT stored") == true)

        let at = DeviceInstant(wall: WallTime(secondsSinceEpoch: 1_795_000_000), uptime: .seconds(5), bootID: "b",
                               wallClockSynchronized: true)
        let record = CheckInRecord(NewCheckIn(id: CheckInID(high: 1, low: 2), at: at, source: .button))
        let stored = CheckInFeature.log(.delegate(.checkInStored(record)), before: state().checkIn, after: state().checkIn)
        XCTAssertEqual(stored.map(\.level), [.notice])
        XCTAssertEqual(stored.first?.metadata["source"], "button")
    }

    func testTheLostHelpAlertIsCritical() {
        let lines = CheckInFeature.log(.delegate(.alertNotStored(StoreFailure(.full, "disk full"))),
                                       before: state().checkIn, after: state().checkIn)
        XCTAssertEqual(lines.map(\.level), [.critical])
    }
}

/// `hasFault` (asked after every action, from the causes alone) and the conditions' own fault
/// flags always agree.
final class FaultAgreementTests: XCTestCase {
    func testTheQuickFaultCheckAgreesWithTheConditionsForEveryCombinationOfCauses() {
        var base = DeviceFeature.initialState(DeviceConfiguration(storePath: "/s/x.sqlite", controlSocket: "/r/x.sock"),
                                              chipDescription: "chip 'gpiochip0'")
        base.checkIn.alert = AlertState(settings: AlertState.Settings(canDeliver: true))
        let since = WallTime(secondsSinceEpoch: 1_795_000_000)
        let alert = AlertRecord(id: CheckInID(high: 1, low: 1), at: DeviceInstant(wall: since, uptime: .seconds(1), bootID: "b",
                                                                                   wallClockSynchronized: true), source: .button)
        let changes: [(inout DeviceFeature.State) -> Void] = [
            { $0.store.problem = StoreProblem(StoreFailure(.full, "disk full"), since: since) },
            { $0.gpio.connection = .waiting(GPIOError(operation: "open", target: "chip", reason: "gone")) },
            { $0.gpio.shownFailure = GPIOError(operation: "open", target: "chip", reason: "gone") },
            { $0.checkIn.alert.unsaved = alert },
            { $0.checkIn.alert.unacknowledged = [alert.id] },
            { $0.checkIn.alert.sendingRefused = "HTTP 401" },
            { $0.checkIn.alert.settings?.canDeliver = false },
            { $0.checkIn.elapsedTimeUnknown = true },
            { $0.checkIn.localTimeUnknown = true },
        ]
        for mask in 0..<(1 << changes.count) {
            var state = base
            for (bit, change) in changes.enumerated() where mask & (1 << bit) != 0 { change(&state) }
            XCTAssertEqual(state.hasFault, state.conditions.contains(where: \.isFault), "causes \(mask)")
        }
    }
}
