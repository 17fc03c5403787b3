import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// Help alerts on a real SQLite file: the v2 migration, durable records, the upload queue.
final class AlertTableTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func testAlertsAreStoredQueuedOldestFirstAndMarkedOnlyWhenAcknowledged() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let first = try await database.recordAlert(AlertRecord(id: .random(), at: instant(wall: 2_000_001, uptime: .microseconds(5_000_001)), source: .button))
        let second = try await database.recordAlert(AlertRecord(id: .random(), at: instant(wall: 1_000_000, synchronized: false), source: .cli))
        XCTAssertEqual(first.upload, .pending)
        let pending = try await database.pendingAlerts(limit: 10)
        XCTAssertEqual(pending, [first, second], "in order of recording, not by clock")
        let depth = try await database.pendingAlertCount()
        XCTAssertEqual(depth, 2)

        let marked = try await database.markAlertsUploaded(ids: [first.id, CheckInID.random()], at: WallTime(microsecondsSinceEpoch: 9))
        XCTAssertEqual(marked, 1, "unknown ids are left alone")
        let left = try await database.pendingAlerts(limit: 10)
        XCTAssertEqual(left, [second])
        let again = try await database.markAlertsUploaded(ids: [first.id], at: WallTime(microsecondsSinceEpoch: 10))
        XCTAssertEqual(again, 0, "an alert already marked keeps its first acknowledgement")

        // Check-ins and alerts are separate queues.
        let checkInsPending = try await database.pendingUploadCount()
        XCTAssertEqual(checkInsPending, 0)
    }

    func testAnAlertIdIsNeverOverwritten() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let alert = AlertRecord(id: .random(), at: instant(wall: 1), source: .button)
        _ = try await database.recordAlert(alert)
        do {
            _ = try await database.recordAlert(AlertRecord(id: alert.id, at: instant(wall: 2), source: .cli))
            XCTFail("a second alert with the same id must be refused")
        } catch {
            XCTAssertTrue(error.message.contains("already stored"), error.message)
        }
        let pending = try await database.pendingAlerts(limit: 10)
        XCTAssertEqual(pending.map(\.at.wall), [WallTime(microsecondsSinceEpoch: 1)])
    }

    func testAVersion1FileGainsTheAlertsTableAndKeepsItsCheckIns() async throws {
        // A file as the previous release left it: schema version 1 with one check-in.
        let checkIn = NewCheckIn(id: .random(), at: instant(wall: 42), source: .button)
        do {
            let old = try Connection(path: path)
            try old.execute("""
                CREATE TABLE check_ins (id TEXT PRIMARY KEY NOT NULL, insertion_order INTEGER NOT NULL UNIQUE,
                    wall_time_us INTEGER NOT NULL, uptime_us INTEGER NOT NULL, boot_id TEXT NOT NULL,
                    wall_clock_synchronized INTEGER NOT NULL, source TEXT NOT NULL, uploaded_at_us INTEGER) STRICT;
                CREATE TABLE settings (singleton INTEGER PRIMARY KEY NOT NULL, interval_us INTEGER NOT NULL,
                    reminder_us INTEGER NOT NULL, version INTEGER NOT NULL, applied_config_interval_us INTEGER,
                    applied_config_reminder_us INTEGER) STRICT;
                INSERT INTO check_ins VALUES ('\(checkIn.id)', 1, 42, 1000000, 'boot', 1, 'button', NULL);
                PRAGMA user_version = 1;
                """)
        }
        let database = try await CheckInDatabase.open(path: path)
        let version = try await database.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion))
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history, [CheckInRecord(checkIn)])
        let alert = try await database.alertClient.record(AlertRecord(id: .random(), at: instant(wall: 50), source: .button))
        let pending = try await database.alertClient.pending()
        XCTAssertEqual(pending, [alert])
    }
}
