import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
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
