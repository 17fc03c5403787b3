import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import TestSupport
import XCTest

/// Help alerts to a further target (a healthchecks alert check) on a real SQLite file: each alert
/// once per target, and "sending" on the LEDs until the first target took it.
final class AlertDeliveryTableTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }
    static let target = "healthchecks-alert"

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private func alert(_ second: Int64) -> AlertRecord {
        AlertRecord(id: .random(), at: DeviceInstant(wall: WallTime(secondsSinceEpoch: second), uptime: .seconds(second), bootID: "boot",
                                                     wallClockSynchronized: true), source: .button)
    }

    func testANewTargetGetsTheAlertsNobodyTookButNotOnesAlreadyDeliveredElsewhere() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let delivered = try await database.recordAlert(alert(1))
        try await database.markAlertsUploaded(ids: [delivered.id], at: WallTime(secondsSinceEpoch: 2))
        let unanswered = try await database.recordAlert(alert(3))  // the backend refused it, say

        try await database.registerAlertDeliveryTarget(Self.target)
        let pending = try await database.pendingAlertDeliveries(target: Self.target, limit: 10)
        XCTAssertEqual(pending, [unanswered], "a request for help nobody has taken is still worth sending")
        let later = try await database.recordAlert(alert(4))
        let both = try await database.pendingAlertDeliveries(target: Self.target, limit: 10)
        XCTAssertEqual(both, [unanswered, later])
        let count = try await database.pendingAlertDeliveryCount(target: Self.target)
        XCTAssertEqual(count, 2)

        // Registering again (every start) changes nothing.
        try await database.registerAlertDeliveryTarget(Self.target)
        let marked = try await database.markAlertsDelivered(target: Self.target, ids: [unanswered.id], at: WallTime(secondsSinceEpoch: 5))
        XCTAssertEqual(marked, 1)
        let again = try await database.markAlertsDelivered(target: Self.target, ids: [unanswered.id], at: WallTime(secondsSinceEpoch: 6))
        XCTAssertEqual(again, 0, "delivered once; the first mark stays")
        let left = try await database.pendingAlertDeliveries(target: Self.target, limit: 10)
        XCTAssertEqual(left, [later])
        let backendQueue = try await database.pendingAlerts(limit: 10).map(\.id)
        XCTAssertEqual(backendQueue, [unanswered.id, later.id], "the backend's own queue is its own")
    }

    func testTheLEDsShowSendingUntilAnyConfiguredTargetTookTheAlert() async throws {
        let database = try await CheckInDatabase.open(path: path)
        try await database.registerAlertDeliveryTarget(Self.target)
        let first = try await database.recordAlert(alert(1))
        let second = try await database.recordAlert(alert(2))
        try await database.markAlertsDelivered(target: Self.target, ids: [first.id], at: WallTime(secondsSinceEpoch: 3))
        try await database.markAlertsUploaded(ids: [second.id], at: WallTime(secondsSinceEpoch: 4))

        let checkOnly = try await database.undeliveredAlerts(backend: false, targets: [Self.target], limit: 10)
        XCTAssertEqual(checkOnly.map(\.id), [second.id], "only the check counts when it is the only target")
        let backendOnly = try await database.undeliveredAlerts(backend: true, targets: [], limit: 10)
        XCTAssertEqual(backendOnly.map(\.id), [first.id])
        let both = try await database.undeliveredAlerts(backend: true, targets: [Self.target], limit: 10)
        XCTAssertEqual(both, [], "each was taken by one of the two")
        let none = try await database.undeliveredAlerts(backend: false, targets: [], limit: 10)
        XCTAssertEqual(none.map(\.id), [first.id], "with no target, what the backend has not taken")
    }
}
