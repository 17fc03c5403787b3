import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// What MQTT adds to the store (schema v7): check-ins with the source `mqtt` (the check-ins table
/// rebuilt with every row and column of a v5 file), the events waiting for the broker in the order
/// they happened, and answers to pings raised on the device, which have no backend to reach.
final class MQTTStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func instant(_ seconds: Int64) -> DeviceInstant {
        DeviceInstant(wall: WallTime(secondsSinceEpoch: 1_795_000_000 + seconds), uptime: .seconds(seconds), bootID: "boot",
                      wallClockSynchronized: true)
    }

    private func event(_ number: Int, entity: String = "check_in") -> DeviceEvent {
        DeviceEvent(id: CheckInID(high: UInt64(number), low: 1), entity: entity, payload: #"{"event_type":"e\#(number)"}"#,
                    at: WallTime(secondsSinceEpoch: 1_795_000_000 + Int64(number)))
    }

    func testAVersion5FileKeepsEveryCheckInWithItsUploadStateAndRefusalAndTakesMQTTCheckIns() async throws {
        // The previous release's file: every migration up to v5, three check-ins (one uploaded,
        // one refused by the backend), a healthchecks delivery.
        do {
            let old = try Connection(path: path)
            try old.transaction { () throws(SQLiteError) in
                for migration in Schema.migrations.prefix(5) { for sql in migration { try old.execute(sql) } }
                try old.execute("""
                    INSERT INTO check_ins VALUES ('00000000-0000-4000-8000-000000000001', 1, 1, 1, 'boot', 1, 'button', 7, NULL);
                    INSERT INTO check_ins VALUES ('00000000-0000-4000-8000-000000000002', 2, 2, 2, 'boot', 0, 'cli', NULL, 'no such device');
                    INSERT INTO check_ins VALUES ('00000000-0000-4000-8000-000000000003', 3, 3, 3, 'boot', 1, 'button', NULL, NULL);
                    INSERT INTO delivery_targets VALUES ('healthchecks', 1);
                    INSERT INTO deliveries VALUES ('healthchecks', '00000000-0000-4000-8000-000000000001', 9, NULL);
                    """)
                _ = try old.pragma("user_version", set: "5")
            }
        }
        let database = try await CheckInDatabase.open(path: path)
        let version = try await database.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion))
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history.map(\.id.description), ["00000000-0000-4000-8000-000000000003", "00000000-0000-4000-8000-000000000002",
                                                        "00000000-0000-4000-8000-000000000001"])
        XCTAssertEqual(history.last?.upload, .uploaded(at: WallTime(microsecondsSinceEpoch: 7)))
        let pending = try await database.pendingCheckIns(limit: 10)
        XCTAssertEqual(pending.map(\.id.description), ["00000000-0000-4000-8000-000000000003"], "the refused one stays out of the queue")
        let refused = try await database.refusedUploads(limit: 10)
        XCTAssertEqual(refused.map(\.message), ["no such device"])
        let healthchecks = try await database.pendingDeliveries(target: "healthchecks", limit: 10)
        XCTAssertEqual(healthchecks.map(\.id.description), ["00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"])

        let remote = try await database.record(NewCheckIn(id: .random(), at: instant(10), source: .mqtt))
        let latest = try await database.history(limit: 1)
        XCTAssertEqual(latest, [remote])
        XCTAssertEqual(remote.source, .mqtt)
        let queued = try await database.pendingCheckIns(limit: 10)
        XCTAssertEqual(queued.last, remote, "an MQTT check-in is uploaded like any other")
    }

    func testEventsComeOutInTheOrderTheyHappenedAndLeaveOnceAcknowledged() async throws {
        let database = try await CheckInDatabase.open(path: path)
        for number in 1...5 { try await database.appendDeviceEvent(event(number, entity: number == 3 ? "help_alert" : "check_in")) }
        try await database.appendDeviceEvent(event(2))  // the same event again: kept once
        let pending = try await database.pendingDeviceEvents(limit: 3)
        XCTAssertEqual(pending, [event(1), event(2), event(3, entity: "help_alert")])
        let removed = try await database.removeDeviceEvents(ids: [event(1).id, event(2).id, event(9).id])
        XCTAssertEqual(removed, 2)
        let rest = try await database.pendingDeviceEvents(limit: 10)
        XCTAssertEqual(rest.map(\.id), [event(3).id, event(4).id, event(5).id])
        let count = try await database.deviceEventCount()
        XCTAssertEqual(count, 3)

        await database.close()
        let reopened = try await CheckInDatabase.open(path: path)
        let afterRestart = try await reopened.pendingDeviceEvents(limit: 10)
        XCTAssertEqual(afterRestart.map(\.id), [event(3).id, event(4).id, event(5).id], "events wait across a restart")
    }

    func testBeyondTheLimitTheOldestEventsGo() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let limit = CheckInDatabase.deviceEventLimit
        try await database.appendAll((1...(limit + 3)).map { event($0) })
        let count = try await database.deviceEventCount()
        XCTAssertEqual(count, limit)
        let oldest = try await database.pendingDeviceEvents(limit: 1)
        XCTAssertEqual(oldest, [event(4)])
    }

    func testTheAnswerToAPingRaisedOnTheDeviceIsNotQueuedForTheBackend() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let local = PendingPing(id: PendingPing.localIDPrefix + "1", responderID: "home-assistant", responderName: "Home Assistant",
                                createdAt: "2026-11-28T08:00:00Z")
        let remote = PendingPing(id: "8c1f0a4e-0000-4000-8000-000000000001", responderID: "r1", responderName: "Ada",
                                 createdAt: "2026-11-28T08:01:00Z")
        let saved = try await database.savePings([local, remote])
        XCTAssertEqual(saved, [local, remote])
        let checkIn = NewCheckIn(id: .random(), at: instant(20), source: .button)
        let answers = [local, remote].map { PingResponse(id: .random(), pingID: $0.id, checkInID: checkIn.id, at: checkIn.at.wall) }
        XCTAssertEqual(answers.map(\.isLocal), [true, false])
        _ = try await database.record(checkIn, answering: answers)
        let stillPending = try await database.pendingPings()
        XCTAssertEqual(stillPending, [], "both are answered")
        let queued = try await database.pendingPingResponses(limit: 10)
        XCTAssertEqual(queued, [answers[1]], "only the backend's ping gets its answer uploaded")
    }
}

extension CheckInDatabase {
    /// Many events in one hop to the store thread (each still its own transaction).
    func appendAll(_ events: [DeviceEvent]) throws(StoreFailure) {
        for event in events { try appendDeviceEvent(event) }
    }
}
