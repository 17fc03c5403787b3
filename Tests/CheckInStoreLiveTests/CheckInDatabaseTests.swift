import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// The check-in store on real SQLite files: schema, durability settings, and every operation.
final class CheckInDatabaseTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    // MARK: Schema and durability

    func testMigratesAnEmptyFileToTheLatestVersion() async throws {
        try directory.write([], to: path)
        let database = try await CheckInDatabase.open(path: path)
        let version = try await database.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion))

        // A second connection (WAL lets it read alongside) sees the tables the store created.
        let inspector = try Connection(path: path, mode: .readOnly)
        let select = try inspector.prepare("SELECT name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
        var names: [String] = []
        while try select.step() { names.append(try select.text(at: 0)) }
        XCTAssertEqual(names, ["alert_deliveries", "alert_delivery_targets", "alerts", "away_periods", "check_ins", "check_ins_pending",
                               "deliveries", "delivery_targets", "dependents", "dependents_view", "mqtt_events",
                               "notification_changes", "notification_changes_pending", "notification_settings",
                               "notifications", "ping_responses", "ping_responses_pending", "pings", "power_events", "removed_watchers",
                               "run_mark", "settings"])
        withExtendedLifetime(database) {}
    }

    func testLiveConnectionUsesWALWithFullSynchronousCommits() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let journalMode = try await database.pragma("journal_mode")
        let synchronous = try await database.pragma("synchronous")
        let busyTimeout = try await database.pragma("busy_timeout")
        XCTAssertEqual(journalMode, "wal")
        XCTAssertEqual(synchronous, "2", "synchronous must be FULL (2) so a confirmed check-in survives power loss")
        XCTAssertEqual(busyTimeout, "5000")
        let integrity = try await database.integrityCheck()
        XCTAssertEqual(integrity, ["ok"])
    }

    // MARK: Check-ins

    func testRecordAndHistoryRoundTripEveryField() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let checkIns = [
            NewCheckIn(id: .random(), at: instant(wall: 1_763_848_519_042_123, uptime: .microseconds(98_765_432_101),
                                                  boot: "0b3f…-boot-ä", synchronized: true), source: .button),
            // A Pi without a real-time clock boots in 1970; before it, too, must survive.
            NewCheckIn(id: .random(), at: instant(wall: 0, uptime: .zero, boot: "b", synchronized: false), source: .cli),
            NewCheckIn(id: .random(), at: instant(wall: -1_234_567_890, uptime: .seconds(1), boot: "", synchronized: false),
                       source: .button),
        ]
        var returned: [CheckInRecord] = []
        for checkIn in checkIns {
            returned.append(try await database.record(checkIn))
        }
        XCTAssertEqual(returned, checkIns.map { CheckInRecord($0, upload: .pending) })

        let history = try await database.history(limit: 10)
        XCTAssertEqual(history, returned.reversed())
    }

    func testRecordReturnsTheCheckInAsStoredToTheMicrosecond() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let new = NewCheckIn(id: .random(), at: instant(wall: 5, uptime: .nanoseconds(1_500_999), boot: "b", synchronized: true),
                             source: .button)
        let stored = try await database.record(new)
        XCTAssertEqual(stored.at.uptime, .microseconds(1_500))
        let history = try await database.history(limit: 1)
        XCTAssertEqual(history, [stored])
    }

    func testHistoryIsNewestFirstByRecordingOrderAndHonoursTheLimit() async throws {
        let database = try await CheckInDatabase.open(path: path)
        // Wall times go backwards (a clock correction): order must still follow recording.
        var recorded: [CheckInRecord] = []
        for step in 0..<5 {
            let new = NewCheckIn(id: .random(), at: instant(wall: Int64(1_000_000 - step * 1000), uptime: .seconds(step),
                                                            boot: "b", synchronized: true), source: .button)
            recorded.append(try await database.record(new))
        }
        let newestThree = try await database.history(limit: 3)
        XCTAssertEqual(newestThree, Array(recorded.reversed().prefix(3)))
        let all = try await database.history(limit: 100)
        XCTAssertEqual(all, recorded.reversed())
        let none = try await database.history(limit: 0)
        let negative = try await database.history(limit: -1)
        XCTAssertEqual(none, [])
        XCTAssertEqual(negative, [], "a negative limit must not mean 'no limit' as it does in SQL")
    }

    func testADuplicateIdIsRefusedAndTheFirstCheckInKept() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let id = CheckInID.random()
        let first = try await database.record(NewCheckIn(id: id, at: instant(wall: 1), source: .button))
        do {
            _ = try await database.record(NewCheckIn(id: id, at: instant(wall: 2), source: .cli))
            XCTFail("recording the same id twice must fail")
        } catch {
            XCTAssertEqual(error.kind, .other)
            XCTAssertTrue(error.message.contains(id.description), error.message)
        }
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history, [first])
    }

    func testPendingCheckInsAreOldestFirstUntilMarkedUploaded() async throws {
        let database = try await CheckInDatabase.open(path: path)
        var recorded: [CheckInRecord] = []
        for step in 0..<4 {
            recorded.append(try await database.record(NewCheckIn(id: .random(), at: instant(wall: Int64(step)), source: .button)))
        }
        let allPending = try await database.pendingCheckIns(limit: 10)
        XCTAssertEqual(allPending, recorded)
        let firstTwo = try await database.pendingCheckIns(limit: 2)
        XCTAssertEqual(firstTwo, Array(recorded.prefix(2)))

        let uploadedAt = WallTime(microsecondsSinceEpoch: 1_763_900_000_000_000)
        let marked = try await database.markUploaded(ids: [recorded[0].id, recorded[2].id, .random()], at: uploadedAt)
        XCTAssertEqual(marked, 2, "unknown ids are not counted")
        // The mark itself is not fsynced, but check-ins written after it are again.
        let synchronous = try await database.pragma("synchronous")
        XCTAssertEqual(synchronous, "2", "synchronous must be FULL again after a mark")
        let stillPending = try await database.pendingCheckIns(limit: 10)
        XCTAssertEqual(stillPending, [recorded[1], recorded[3]])
        let pendingCount = try await database.pendingUploadCount()
        let total = try await database.count()
        XCTAssertEqual(pendingCount, 2)
        XCTAssertEqual(total, 4)

        // Marking again keeps the first acknowledgement time.
        let remarked = try await database.markUploaded(ids: [recorded[0].id], at: uploadedAt + .seconds(60))
        XCTAssertEqual(remarked, 0)
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history.map(\.upload), [.pending, .uploaded(at: uploadedAt), .pending, .uploaded(at: uploadedAt)])
    }

    // MARK: Settings

    func testSettingsAreNilOnAFreshStoreAndRoundTrip() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let fresh = try await database.loadSettings()
        XCTAssertNil(fresh)

        let withoutConfig = StoredSettings(settings: CheckInSettings(interval: .seconds(16 * 3600), reminder: .seconds(3600)),
                                           version: 3, appliedFromConfig: nil)
        try await database.saveSettings(withoutConfig)
        let loadedWithoutConfig = try await database.loadSettings()
        XCTAssertEqual(loadedWithoutConfig, withoutConfig)

        let withConfig = StoredSettings(settings: .default, version: 4,
                                        appliedFromConfig: CheckInSettings(interval: .seconds(8 * 3600), reminder: .milliseconds(1500)))
        try await database.saveSettings(withConfig)
        let loadedWithConfig = try await database.loadSettings()
        XCTAssertEqual(loadedWithConfig, withConfig)
    }

    // MARK: Persistence

    func testReopeningAfterCloseKeepsEverything() async throws {
        let settings = StoredSettings(settings: .default, version: 7, appliedFromConfig: .default)
        var recorded: [CheckInRecord] = []
        let uploadedAt = WallTime(secondsSinceEpoch: 1_763_000_000)
        do {
            let database = try await CheckInDatabase.open(path: path)
            for step in 0..<3 {
                recorded.append(try await database.record(NewCheckIn(id: .random(), at: instant(wall: Int64(step)), source: .cli)))
            }
            try await database.markUploaded(ids: [recorded[1].id], at: uploadedAt)
            try await database.saveSettings(settings)
        }
        recorded[1].upload = .uploaded(at: uploadedAt)

        let reopened = try await CheckInDatabase.open(path: path)
        let history = try await reopened.history(limit: 10)
        let loaded = try await reopened.loadSettings()
        let version = try await reopened.pragma("user_version")
        XCTAssertEqual(history, recorded.reversed())
        XCTAssertEqual(loaded, settings)
        XCTAssertEqual(version, String(Schema.latestVersion))
    }

    func testTheClientInterfaceReachesTheDatabase() async throws {
        let client = try await CheckInDatabase.open(path: path).client
        let stored = try await client.record(NewCheckIn(id: .random(), at: instant(wall: 9), source: .button))
        let history = try await client.history(1)
        let pending = try await client.pendingUploadCount()
        let settings = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil)
        try await client.saveSettings(settings)
        let loaded = try await client.loadSettings()
        XCTAssertEqual(history, [stored])
        XCTAssertEqual(pending, 1)
        XCTAssertEqual(loaded, settings)
    }
}

func instant(wall: Int64, uptime: Duration = .seconds(1), boot: String = "boot", synchronized: Bool = true) -> DeviceInstant {
    DeviceInstant(wall: WallTime(microsecondsSinceEpoch: wall), uptime: uptime, bootID: boot,
                  wallClockSynchronized: synchronized)
}
