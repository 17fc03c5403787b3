import CheckInFeature
import CheckInModels
import CheckInStoreClient
import TestSupport
import XCTest

/// The Raspberry Pi has no real-time clock: the wall clock may start at 1970 or at fake-hwclock's
/// last save, and NTP steps it later. Countdowns run on monotonic time within a boot; across a
/// reboot the elapsed time counts only with trusted wall clocks (docs/time.md). For every jump:
/// no false "overdue" and no missed "overdue".
final class TimeTests: FeatureTestCase {
    static let day = hour * 24

    // MARK: Jumps within one boot

    func testWallClockJumpsWithinABootNeitherHastenNorDelayTheDeadline() async {
        for jump in [Duration.seconds(5 * 60), .zero - .seconds(5 * 60), Self.day * 3, .zero - Self.day * 3] {
            await assertDeadlineHolds(acrossJumpOf: jump)
        }
    }

    private func assertDeadlineHolds(acrossJumpOf jump: Duration, line: UInt = #line) async {
        let last = Self.record(ago: .zero)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.day)))

        await clock.advance(by: Self.hour * 10)
        wallClock.step(by: jump)
        store.send(.wallClockChanged, assert: {
            // Same time left; only the wall-clock deadline shown moves with the clock.
            $0.phase = .checkedIn(Countdown(deadline: Self.start.wall + jump + Self.day, remaining: Self.hour * 14))
        }, line: line)

        // One second before the reminder and before the deadline nothing happens (no early
        // boundary would go unnoticed: `send` fails while a received action is unhandled).
        await clock.advance(by: Self.hour * 12 - .seconds(1))
        await store.expectNoAction(line: line)
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached, assert: {
            $0.phase = .reminder(Countdown(deadline: Self.start.wall + jump + Self.day, remaining: Self.hour * 2))
        }, line: line)
        await clock.advance(by: Self.hour * 2 - .seconds(1))
        await store.expectNoAction(line: line)
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached, assert: {
            $0.phase = .overdue(Countdown(deadline: Self.start.wall + jump + Self.day, remaining: .zero))
        }, line: line)
        XCTAssertEqual(store.state.indicator(fault: false), .overdue, "jump \(jump)", line: line)
        await stop(store)
        wallClock.step(by: .zero - jump)
    }

    // MARK: Reboots with an untrusted wall clock

    /// Boot B starts at 1970 (no RTC, no fake-hwclock), 30 s of uptime in; the real time is 2 h
    /// after the last check-in, which was made with a synchronised clock on boot A.
    static let realBootTime = start.wall + hour * 2
    static let bootAt1970 = DeviceInstant(wall: WallTime(secondsSinceEpoch: 30), uptime: .seconds(30),
                                          bootID: "boot-b", wallClockSynchronized: false)

    func testBootAt1970IsNeitherOverdueNorCheckedInUntilTheClockIsSynchronised() async {
        let last = Self.record(ago: .zero, bootID: Self.bootA)
        let store = makeStore(records: [last], bootingAt: Self.bootAt1970)
        // Only a lower bound is known (this boot's 30 s): ask for a check-in, claim nothing else.
        let atMost = Self.day - .seconds(30)
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: Self.bootAt1970.wall + atMost, remaining: atMost)),
                    elapsedTimeUnknown: true)
        XCTAssertEqual(store.state.indicator(fault: false), .reminder)

        // NTP synchronises a minute later and steps the clock to the real time.
        await clock.advance(by: .seconds(60))
        wallClock.step(by: Self.realBootTime - Self.bootAt1970.wall, synchronized: true)
        let realNow = Self.realBootTime + .seconds(60)
        let left = Self.day - Self.hour * 2 - .seconds(60)
        store.send(.wallClockChanged) {
            $0.elapsedTimeUnknown = false
            $0.phase = .checkedIn(Countdown(deadline: realNow + left, remaining: left))
        }

        // The real deadline, to the second: not early, not late.
        await clock.advance(by: left - Self.hour * 2 - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(Countdown(deadline: realNow + left, remaining: Self.hour * 2))
        }
        await clock.advance(by: Self.hour * 2 - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(Countdown(deadline: realNow + left, remaining: .zero))
        }
        await stop(store)
    }

    func testOverdueBeforeABootAt1970IsOverdueAsSoonAsTheClockIsKnown() async {
        let last = Self.record(ago: Self.hour * 30, bootID: Self.bootA)
        let store = makeStore(records: [last], bootingAt: Self.bootAt1970)
        let atMost = Self.day - .seconds(30)
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: Self.bootAt1970.wall + atMost, remaining: atMost)),
                    elapsedTimeUnknown: true)
        // Not a false "overdue" from the 1970 wall clock, and not "checked in" either.
        XCTAssertNotEqual(store.state.indicator(fault: false), .checkedIn)

        await clock.advance(by: .seconds(10))
        wallClock.step(by: Self.realBootTime - Self.bootAt1970.wall, synchronized: true)
        store.send(.wallClockChanged) {
            $0.elapsedTimeUnknown = false
            // Real time since the check-in: 30 h + 2 h (this boot's start) − … measured on the wall.
            let elapsed = (Self.realBootTime + .seconds(10)) - last.at.wall
            $0.phase = .overdue(Countdown(deadline: Self.realBootTime + .seconds(10) + (Self.day - elapsed),
                                          remaining: Self.day - elapsed))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)
        await stop(store)
    }

    func testACheckInWhileTheTimeIsUnknownMakesTheCountdownExactAgain() async {
        let last = Self.record(ago: .zero, bootID: Self.bootA)
        let store = makeStore(records: [last], bootingAt: Self.bootAt1970)
        let atMost = Self.day - .seconds(30)
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: Self.bootAt1970.wall + atMost, remaining: atMost)),
                    elapsedTimeUnknown: true)
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = CheckInRecord(id: id(1), at: Self.bootAt1970, source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record, last]
            $0.feedback = .acknowledged
            // Measured on this boot's monotonic clock: exact, whatever the wall clock says.
            $0.elapsedTimeUnknown = false
            $0.phase = .checkedIn(Countdown(deadline: Self.bootAt1970.wall + Self.day, remaining: Self.day))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    func testWithoutSynchronisationOverdueStillComesOneIntervalAfterBoot() async {
        // The lower bound grows with uptime: even if NTP never answers, "overdue" is not missed for
        // longer than one interval after the boot.
        let last = Self.record(ago: Self.hour * 30, bootID: Self.bootA)
        let store = makeStore(records: [last], bootingAt: Self.bootAt1970)
        let atMost = Self.day - .seconds(30)
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: Self.bootAt1970.wall + atMost, remaining: atMost)),
                    elapsedTimeUnknown: true)
        await clock.advance(by: atMost - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(Countdown(deadline: Self.bootAt1970.wall + atMost, remaining: .zero))
        }
        await stop(store)
    }

    func testFakeHwclockAheadOrBehindDoesNotStretchOrShortenTheCountdown() async {
        // Checked in 2 h before this boot; the unsynchronised wall clock is days off either way.
        // Trusting it would say "overdue" (ahead) or a fresh 24 h (behind); neither is known.
        for offset in [Self.day * 3, .zero - Self.day] {
            var boot = Self.bootAt1970
            boot.wall = Self.realBootTime + offset
            let last = Self.record(ago: .zero, bootID: Self.bootA)
            let store = makeStore(records: [last], bootingAt: boot)
            let atMost = Self.day - .seconds(30)
            await start(store, records: [last],
                        expectPhase: .reminder(Countdown(deadline: boot.wall + atMost, remaining: atMost)),
                        elapsedTimeUnknown: true)
            XCTAssertEqual(store.state.indicator(fault: false), .reminder, "offset \(offset)")

            // NTP steps the clock back to the truth: exact again.
            wallClock.step(by: .zero - offset, synchronized: true)
            store.send(.wallClockChanged) {
                $0.elapsedTimeUnknown = false
                $0.phase = .checkedIn(Countdown(deadline: Self.realBootTime + Self.hour * 22,
                                                remaining: Self.hour * 22))
            }
            await stop(store)
            wallClock.step(by: offset, synchronized: false)
        }
    }

    func testRebootWithSynchronisedClocksOnBothSidesUsesTheWallClock() async {
        var boot = Self.bootAt1970
        boot.wall = Self.realBootTime
        boot.wallClockSynchronized = true
        let last = Self.record(ago: .zero, bootID: Self.bootA)
        let store = makeStore(records: [last], bootingAt: boot)
        await start(store, records: [last], expectPhase: .checkedIn(
            Countdown(deadline: Self.realBootTime + Self.hour * 22, remaining: Self.hour * 22)))
        XCTAssertFalse(store.state.elapsedTimeUnknown)
        await stop(store)
    }

    // MARK: Re-anchoring check-ins made before synchronisation

    func testCheckInBeforeSynchronisationIsReanchoredOnceTheClockIsTrusted() async {
        let store = makeStore(records: [], bootingAt: Self.bootAt1970)
        await start(store, records: [], stored: StoredSettings(settings: .default, version: 1, appliedFromConfig: nil),
                    expectPhase: .neverCheckedIn)
        await clock.advance(by: .seconds(20))
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        var pressedAt = Self.bootAt1970.advanced(by: .seconds(20))
        let record = CheckInRecord(id: id(1), at: pressedAt, source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(Countdown(deadline: pressedAt.wall + Self.day, remaining: Self.day))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }

        // A minute after boot NTP steps the clock to the real time.
        await clock.advance(by: .seconds(40) - .milliseconds(1500))
        wallClock.step(by: Self.realBootTime - Self.bootAt1970.wall, synchronized: true)
        let realNow = Self.realBootTime + .seconds(60)
        let left = Self.day - .seconds(40)
        store.send(.wallClockChanged) {
            $0.phase = .checkedIn(Countdown(deadline: realNow + left, remaining: left))
        }
        await store.receive(.wallTimesReanchored(.success(1)))
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        // wall = now.wall − (now.uptime − uptime): the real time of the press.
        pressedAt.wall = Self.realBootTime + .seconds(20)
        pressedAt.wallClockSynchronized = true
        let reanchored = CheckInRecord(id: id(1), at: pressedAt, source: .button)
        await store.receive(.checkInHistoryResponse(.success([reanchored]))) {
            $0.isLoadingHistory = false
            $0.history = [reanchored]
        }
        XCTAssertEqual(fake.records, [reanchored])
        await stop(store)
    }

    /// A first synchronisation that only slews the clock sets nothing, and the monitor may look at
    /// the kernel's NTP state only an hour later: the next phase boundary, a moment the device is
    /// awake anyway, re-anchors what was stamped before.
    func testAPhaseBoundaryReanchorsCheckInsOnceTheClockIsTrustedWithoutAStep() async {
        let store = makeStore(records: [], bootingAt: Self.bootAt1970)
        await start(store, records: [], stored: StoredSettings(settings: .default, version: 1, appliedFromConfig: nil),
                    expectPhase: .neverCheckedIn)
        await clock.advance(by: .seconds(20))
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        var pressedAt = Self.bootAt1970.advanced(by: .seconds(20))
        let record = CheckInRecord(id: id(1), at: pressedAt, source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(Countdown(deadline: pressedAt.wall + Self.day, remaining: Self.day))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }

        // NTP slews a clock that was right all along: trusted from now on, nothing stepped, no news.
        wallClock.step(by: .zero, synchronized: true)
        await clock.advance(by: Self.day - Self.hour * 2 - .milliseconds(1500))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(Countdown(deadline: pressedAt.wall + Self.day, remaining: Self.hour * 2))
        }
        await store.receive(.wallTimesReanchored(.success(1)))
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        pressedAt.wallClockSynchronized = true
        let reanchored = CheckInRecord(id: id(1), at: pressedAt, source: .button)
        await store.receive(.checkInHistoryResponse(.success([reanchored]))) {
            $0.isLoadingHistory = false
            $0.history = [reanchored]
        }
        XCTAssertEqual(fake.records, [reanchored])
        await stop(store)
    }
}

/// Readings that contradict each other: the device cannot tell how much time passed, so it says so
/// ("elapsed time unknown") instead of taking a contradiction for a measurement (docs/time.md).
final class ContradictoryClockTests: FeatureTestCase {
    static let day = hour * 24

    /// Same boot id, but the monotonic clock reads 2 h less than at the check-in: possible when the
    /// daemon restarts in another time namespace (CLOCK_BOOTTIME has a per-namespace offset).
    func testUptimeGoingBackwardsWithinOneBootIsUnknownNotAFreshInterval() async {
        var last = Self.record(ago: .zero)
        last.at.uptime = Self.start.uptime + Self.hour * 2
        last.at.wallClockSynchronized = false
        var now = Self.start
        now.wallClockSynchronized = false
        XCTAssertEqual(now.elapsedTime(since: last.at), .atLeast(.zero))

        let store = makeStore(records: [last], bootingAt: now)
        // Not `checked_in` with a whole interval left: ask for a check-in, claim nothing else.
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: now.wall + Self.day, remaining: Self.day)),
                    elapsedTimeUnknown: true)
        XCTAssertEqual(store.state.indicator(fault: false), .reminder)
        await stop(store)
    }

    /// The check-in was stamped by a synchronised clock on boot A; on boot B the clock is
    /// synchronised again but reads an hour *earlier* than that stamp. One of the two is wrong.
    func testSynchronisedWallClockEarlierThanASynchronisedCheckInIsUnknown() async {
        let last = Self.record(ago: .zero, bootID: Self.bootA)
        let boot = DeviceInstant(wall: Self.start.wall + (.zero - Self.hour), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: true)
        XCTAssertEqual(boot.elapsedTime(since: last.at), .atLeast(.seconds(30)))

        let store = makeStore(records: [last], bootingAt: boot)
        let atMost = Self.day - .seconds(30)
        await start(store, records: [last],
                    expectPhase: .reminder(Countdown(deadline: boot.wall + atMost, remaining: atMost)),
                    elapsedTimeUnknown: true)
        await stop(store)
    }
}

extension FeatureTestCase {
    func start(
        _ store: TestStore<CheckInFeature>,
        records: [CheckInRecord],
        stored: StoredSettings? = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil),
        expectPhase phase: Phase,
        elapsedTimeUnknown: Bool
    ) async {
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.settingsVersion = stored?.version ?? 0
            $0.settings = stored?.settings ?? .default
        }
        await store.receive(.checkInHistoryResponse(.success(records))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = records
            $0.phase = phase
            $0.elapsedTimeUnknown = elapsedTimeUnknown
        }
    }
}
