import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// Away periods, the device's events and the run's mark on a real SQLite file, across reopening
/// (a restart or a power cut).
final class DailyLifeStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("checkins.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    func testAVersion7FileKeepsItsRowsAndTakesAwayPowerEventsAndTheRunMark() async throws {
        // The previous release's file (MQTT, v7): a check-in from MQTT, saved settings, an event
        // waiting for the broker.
        do {
            let old = try Connection(path: path)
            try old.transaction { () throws(SQLiteError) in
                for migration in Schema.migrations.prefix(7) { for sql in migration { try old.execute(sql) } }
                try old.execute("""
                    INSERT INTO check_ins VALUES ('00000000-0000-4000-8000-000000000001', 1, 1000000, 1, 'boot', 1, 'mqtt', NULL, NULL);
                    INSERT INTO settings VALUES (1, 86400000000, 7200000000, 3, NULL, NULL);
                    INSERT INTO mqtt_events VALUES (1, '00000000-0000-4000-8000-0000000000e1', 'check_in', '{}', 1000000);
                    """)
                _ = try old.pragma("user_version", set: "7")
            }
        }
        let database = try await CheckInDatabase.open(path: path)
        let version = try await database.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion))
        let history = try await database.history(limit: 10)
        XCTAssertEqual(history.map(\.source), [.mqtt])
        let settings = try await database.loadSettings()
        XCTAssertEqual(settings?.version, 3)
        XCTAssertNil(settings?.away, "a v7 file was never away")
        let waiting = try await database.pendingDeviceEvents(limit: 10)
        XCTAssertEqual(waiting.map(\.entity), ["check_in"], "the broker's queue is kept")

        let period = AwayPeriod(id: .random(), start: instant(wall: 2), duration: .seconds(3600), source: .mqtt)
        try await database.startAway(period, settings: nil)
        let periods = try await database.awayPeriods(limit: 10)
        XCTAssertEqual(periods, [period], "away from MQTT is a source the table takes")
        let event = try await database.recordPowerEvent(PowerEvent(id: .random(), at: instant(wall: 3), kind: .onBattery))
        let events = try await database.powerEvents(limit: 10)
        XCTAssertEqual(events, [event])
        let previous = try await database.markRunStarted(instant(wall: 4))
        XCTAssertNil(previous, "no run was marked in a v7 file")
    }

    func testAwayIsStoredWithItsSettingsAndKeptAcrossReopening() async throws {
        let started = instant(wall: 100_000_000, uptime: .seconds(50))
        let period = AwayPeriod(id: .random(), start: started, duration: .seconds(3 * 86_400), source: .cli)
        let settings = StoredSettings(settings: .default, version: 4, appliedFromConfig: nil, away: period.plan)
        do {
            let database = try await CheckInDatabase.open(path: path)
            try await database.startAway(period, settings: settings)
        }
        let reopened = try await CheckInDatabase.open(path: path)
        let loaded = try await reopened.loadSettings()
        XCTAssertEqual(loaded?.away, period.plan)
        XCTAssertEqual(loaded?.version, 4)
        XCTAssertEqual(loaded?.latestAway, period, "a restart knows at once that the device is away")

        // A new period replaces the running one; ending it early clears the plan in the same write.
        let second = AwayPeriod(id: .random(), start: instant(wall: 100_100_000, uptime: .seconds(60)), duration: .seconds(3600),
                                source: .backend)
        try await reopened.startAway(second, settings: nil)
        var ended = second
        ended.ended = AwayPeriod.Ending(at: instant(wall: 100_200_000, uptime: .seconds(70)), reason: .press)
        let cleared = StoredSettings(settings: .default, version: 5, appliedFromConfig: nil)
        try await reopened.endAway(ended, settings: cleared)
        let periods = try await reopened.awayPeriods(limit: 10)
        var replaced = period
        replaced.ended = AwayPeriod.Ending(at: second.start, reason: .replaced)
        XCTAssertEqual(periods, [ended, replaced])
        let after = try await reopened.loadSettings()
        XCTAssertNil(after?.away)
        XCTAssertEqual(after?.version, 5)
        XCTAssertEqual(after?.latestAway, ended)
    }

    func testEventsWaitForEachTargetOnItsOwn() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let lost = try await database.recordPowerEvent(PowerEvent(id: .random(), at: instant(wall: 1), kind: .onBattery, detail: "x"))
        let restored = try await database.recordPowerEvent(PowerEvent(id: .random(), at: instant(wall: 2), kind: .powerRestored))
        try await database.markEventsDelivered(ids: [lost.id], to: .backend, at: WallTime(secondsSinceEpoch: 3))
        let backend = try await database.powerEvents(limit: 10, pendingFor: .backend)
        XCTAssertEqual(backend.map(\.id), [restored.id])
        let healthchecks = try await database.powerEvents(limit: 10, pendingFor: .healthchecks)
        XCTAssertEqual(healthchecks.map(\.id), [lost.id, restored.id], "oldest first, each target on its own")
        let recent = try await database.powerEvents(limit: 10)
        XCTAssertEqual(recent.map(\.kind), [.powerRestored, .onBattery])
        let pending = try await database.pendingEventCount(for: .healthchecks)
        XCTAssertEqual(pending, 2)
    }

    func testTheRunsMarkTellsACleanStopFromADeath() async throws {
        let first = instant(wall: 10)
        do {
            let database = try await CheckInDatabase.open(path: path)
            let previous = try await database.markRunStarted(first)
            XCTAssertNil(previous, "a fresh store has no previous run")
            // Killed here: no clean-stop mark.
        }
        let second = instant(wall: 20, boot: "boot-2")
        do {
            let database = try await CheckInDatabase.open(path: path)
            let previous = try await database.markRunStarted(second)
            XCTAssertEqual(previous, PreviousRun(startedAt: first, stoppedCleanly: false))
            try await database.markRunStopped()
        }
        let database = try await CheckInDatabase.open(path: path)
        let previous = try await database.markRunStarted(instant(wall: 30))
        XCTAssertEqual(previous, PreviousRun(startedAt: second, stoppedCleanly: true))
    }
}
