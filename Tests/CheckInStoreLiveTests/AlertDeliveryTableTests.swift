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

    func testTheLEDsShowSendingUntilAnyTargetTookTheAlert() async throws {
        let database = try await CheckInDatabase.open(path: path)
        try await database.registerAlertDeliveryTarget(Self.target)
        let first = try await database.recordAlert(alert(1))
        let second = try await database.recordAlert(alert(2))
        let third = try await database.recordAlert(alert(3))
        try await database.markAlertsDelivered(target: Self.target, ids: [first.id], at: WallTime(secondsSinceEpoch: 4))
        try await database.markAlertsUploaded(ids: [second.id], at: WallTime(secondsSinceEpoch: 5))
        let undelivered = try await database.undeliveredAlerts(limit: 10)
        XCTAssertEqual(undelivered.map(\.id), [third.id], "one taken by either target reached someone")
        XCTAssertEqual(first.upload, .pending)
    }
}
