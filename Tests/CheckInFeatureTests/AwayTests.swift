import CheckInFeature
import CheckInModels
import CheckInStoreClient
import TestSupport
import XCTest

/// Away mode: no reminder and no overdue while it runs; stored before it counts; ended by its time,
/// the CLI, a press or the backend, after which a fresh countdown starts; kept across a restart.
final class AwayTests: FeatureTestCase {
    static let day = hour * 24
    let last = FeatureTestCase.record(ago: FeatureTestCase.hour)

    /// Starts away mode at the test's start.
    private func startAway(_ store: TestStore<CheckInFeature>, for duration: Duration, version: Int64 = 2) async -> AwayPeriod {
        let period = AwayPeriod(id: id(1), start: Self.start, duration: duration, source: .cli)
        store.send(.away(.requested(.lasting(duration), .cli))) {
            $0.settingsVersion = version
            $0.away.isSaving = true
        }
        await store.receive(.away(.startResponse(.success(period)))) {
            $0.away.isSaving = false
            $0.away.latest = period
            $0.phase = .away(until: period.until)
        }
        await store.receive(.delegate(.awayStarted(period)))
        XCTAssertEqual(store.state.indicator(fault: false), .away)
        XCTAssertNil(store.state.buzzer)
        return period
    }

    func testAwaySilencesTheDeadlineAndEndingItStartsAFreshCountdown() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        let period = await startAway(store, for: Self.day * 3)
        XCTAssertEqual(fake.settings?.away, period.plan, "the away plan is stored with the settings, as a new version")
        XCTAssertEqual(fake.settings?.version, 2)
        XCTAssertEqual(fake.awayPeriods, [period])

        // The old deadline (23 h) passes with no reminder, no last chance, no overdue.
        await clock.advance(by: Self.hour * 30)
        await store.expectNoAction()

        store.send(.away(.endRequested(.cli))) {
            $0.settingsVersion = 3
            $0.away.isSaving = true
        }
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start.advanced(by: Self.hour * 30), reason: .cli)
        await store.receive(.away(.endResponse(.success(ended)))) {
            $0.away.isSaving = false
            $0.away.latest = ended
            // A whole interval from the moment it ended, not from the check-in before it.
            $0.phase = .checkedIn(self.countdown(remaining: Self.day, now: Self.hour * 30))
        }
        await store.receive(.delegate(.awayEnded(ended)))
        XCTAssertNil(fake.settings?.away)
        XCTAssertEqual(fake.settings?.version, 3)
        XCTAssertEqual(fake.awayPeriods, [ended])

        await clock.advance(by: Self.hour * 22)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2, now: Self.hour * 52))
        }
        await stop(store)
    }

    func testAwayEndsByItselfAndTheCountdownStartsAtItsEnd() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        let period = await startAway(store, for: Self.hour * 2)

        await clock.advance(by: Self.hour * 2)
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start.advanced(by: Self.hour * 2), reason: .expired)
        await store.receive(.phaseBoundaryReached) {
            $0.away.latest = ended
            $0.away.isSaving = true
            $0.phase = .checkedIn(self.countdown(remaining: Self.day, now: Self.hour * 2))
        }
        await store.receive(.away(.endResponse(.success(ended)))) { $0.away.isSaving = false }
        await store.receive(.delegate(.awayEnded(ended)))
        XCTAssertEqual(fake.settings?.version, 2, "its end was agreed when it started: no new settings version")
        XCTAssertEqual(fake.awayPeriods, [ended])
        await stop(store)
    }

    func testAPressWhileAwayChecksInAndEndsIt() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        let period = await startAway(store, for: Self.day * 3)
        await clock.advance(by: Self.hour * 5)

        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = CheckInRecord(id: id(2), at: Self.start.advanced(by: Self.hour * 5), source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record, self.last]
            $0.feedback = .acknowledged
        }
        await store.receive(.delegate(.checkInStored(record)))
        await store.receive(.away(.endRequested(.press))) {
            $0.settingsVersion = 3
            $0.away.isSaving = true
        }
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start.advanced(by: Self.hour * 5), reason: .press)
        await store.receive(.away(.endResponse(.success(ended)))) {
            $0.away.isSaving = false
            $0.away.latest = ended
            $0.phase = .checkedIn(self.countdown(remaining: Self.day, now: Self.hour * 5))
        }
        await store.receive(.delegate(.awayEnded(ended)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    func testWithPressEndsOffAPressWhileAwayChecksInAndAwayGoesOn() async {
        let store = makeStore(records: [last], adjust: { $0.away.pressEnds = false })
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        let period = await startAway(store, for: Self.day)
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = CheckInRecord(id: id(2), at: Self.start, source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record, self.last]
            $0.feedback = .acknowledged
        }
        await store.receive(.delegate(.checkInStored(record)))
        XCTAssertEqual(store.state.away.running, period)
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    func testARestartDuringAwayKeepsIt() async {
        // Started 20 h ago on this boot for two days; the daemon restarts.
        let began = Self.start.advanced(by: .zero - Self.hour * 20)
        let period = AwayPeriod(id: id(7), start: began, duration: Self.day * 2, source: .cli)
        let stored = StoredSettings(settings: .default, version: 4, appliedFromConfig: nil, away: period.plan, latestAway: period)
        let store = makeStore(records: [last], stored: stored, awayPeriods: [period])
        await start(store, records: [last], stored: stored, expectPhase: .away(until: period.until))
        XCTAssertEqual(store.state.indicator(fault: false), .away)

        // It ends when its two days are up, 28 h from now, and not a moment before.
        await clock.advance(by: Self.hour * 28 - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start.advanced(by: Self.hour * 28), reason: .expired)
        await store.receive(.phaseBoundaryReached) {
            $0.away.latest = ended
            $0.away.isSaving = true
            $0.phase = .checkedIn(self.countdown(remaining: Self.day, now: Self.hour * 28))
        }
        await store.receive(.away(.endResponse(.success(ended)))) { $0.away.isSaving = false }
        await store.receive(.delegate(.awayEnded(ended)))
        await stop(store)
    }

    func testAPowerCutDuringAwayWithAnUntrustedClockKeepsItOnAndSaysTheTimeIsUnknown() async {
        // Boot B at 1970: the time since away began is known only as this boot's uptime.
        let began = Self.start.advanced(by: .zero - Self.hour * 5)
        let period = AwayPeriod(id: id(7), start: began, duration: Self.day, source: .cli)
        let stored = StoredSettings(settings: .default, version: 4, appliedFromConfig: nil, away: period.plan, latestAway: period)
        let boot = DeviceInstant(wall: WallTime(secondsSinceEpoch: 30), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: false)
        let store = makeStore(records: [last], stored: stored, bootingAt: boot, awayPeriods: [period])
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.settingsVersion = 4
            $0.away.latest = period
        }
        await store.receive(.checkInHistoryResponse(.success([last]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = [self.last]
            $0.phase = .away(until: period.until)
            $0.elapsedTimeUnknown = true
        }
        // Never longer than its own length after this boot began.
        await clock.advance(by: Self.day - .seconds(30))
        var ended = period
        ended.ended = AwayPeriod.Ending(at: boot.advanced(by: Self.day - .seconds(30)), reason: .expired)
        await store.receive(.phaseBoundaryReached) {
            $0.away.latest = ended
            $0.away.isSaving = true
            // The fresh countdown from its end is a lower bound too: amber, never "checked in".
            $0.phase = .reminder(Countdown(deadline: boot.wall + (Self.day * 2 - .seconds(30)), remaining: Self.day))
        }
        await store.receive(.away(.endResponse(.success(ended)))) { $0.away.isSaving = false }
        await store.receive(.delegate(.awayEnded(ended)))
        await stop(store)
    }

    func testAnAwayDateNeedsATrustedClockAndNothingIsStoredWhenRefused() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        wallClock.step(by: .zero, synchronized: false)
        let until = Self.start.wall + Self.day
        store.send(.away(.requested(.until(until), .cli)))
        await store.receive(.delegate(.awayRefused(AwayError(
            "the device's clock is not synchronised, so it cannot tell how far away \(until.iso8601) is; "
                + "give a duration instead (e.g. --until 3d)"))))
        wallClock.step(by: .zero, synchronized: true)
        store.send(.away(.requested(.until(Self.start.wall + (.zero - Self.hour)), .cli)))
        await store.receive(.delegate(.awayRefused(AwayError("that time has passed already"))))
        store.send(.away(.requested(.lasting(Self.day * 91), .cli)))
        await store.receive(.delegate(.awayRefused(AwayError(
            "away for \(DurationText.humane(Self.day * 91)) is longer than the \(DurationText.humane(longestAway)) the device allows"))))
        store.send(.away(.endRequested(.cli)))
        await store.receive(.delegate(.awayRefused(AwayError("the device is not away"))))
        XCTAssertEqual(fake.awayPeriods, [])
        XCTAssertEqual(fake.settings?.version, 1)
        await stop(store)
    }

    func testAStoreThatCannotWriteLeavesTheDeviceAsItWas() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        let failure = StoreFailure(.full, "disk full")
        fake.failWrites(with: failure)
        store.send(.away(.requested(.lasting(Self.day), .cli))) {
            $0.settingsVersion = 2
            $0.away.isSaving = true
        }
        await store.receive(.away(.startResponse(.failure(failure)))) { $0.away.isSaving = false }
        await store.receive(.delegate(.awayNotSaved(failure)))
        XCTAssertNil(store.state.away.running, "never claims away mode it could not store")
        await stop(store)
    }

    func testAwayFromTheBackendsSettingsStartsAndEndsOnTheDevice() async {
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        // The settings sync saved the backend's newer settings, with away until tomorrow.
        let until = Self.start.wall + Self.day
        let fromBackend = StoredSettings(settings: .default, version: 9, appliedFromConfig: nil,
                                         away: AwayPlan(since: Self.start.wall, until: until))
        fake.contents.withLock { $0.settings = fromBackend }
        store.send(.loadCheckInSettings)
        await store.receive(.checkInSettingsResponse(.success(fromBackend))) { $0.settingsVersion = 9 }
        await store.receive(.away(.requested(.until(until), .backend))) { $0.away.isSaving = true }
        let period = AwayPeriod(id: id(1), start: Self.start, duration: Self.day, source: .backend)
        await store.receive(.away(.startResponse(.success(period)))) {
            $0.away.isSaving = false
            $0.away.latest = period
            $0.phase = .away(until: until)
        }
        await store.receive(.delegate(.awayStarted(period)))
        XCTAssertEqual(fake.settings?.version, 9, "the backend's version stands")

        // The backend ends it.
        await clock.advance(by: Self.hour)
        var cleared = fromBackend
        cleared.away = nil
        cleared.version = 10
        fake.contents.withLock { $0.settings = cleared }
        store.send(.loadCheckInSettings)
        var withPeriod = cleared
        withPeriod.latestAway = period
        await store.receive(.checkInSettingsResponse(.success(withPeriod))) { $0.settingsVersion = 10 }
        await store.receive(.away(.endRequested(.backend))) { $0.away.isSaving = true }
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start.advanced(by: Self.hour), reason: .backend)
        await store.receive(.away(.endResponse(.success(ended)))) {
            $0.away.isSaving = false
            $0.away.latest = ended
            $0.phase = .checkedIn(self.countdown(remaining: Self.day, now: Self.hour))
        }
        await store.receive(.delegate(.awayEnded(ended)))
        await stop(store)
    }
}
