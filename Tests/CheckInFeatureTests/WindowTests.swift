import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceClock
import DeviceClockLive
import Synchronization
import TestSupport
import XCTest

/// Daily windows on the system's tzdata (through the C library): the reminder at the window's
/// start, the last chance at its end, overdue after the grace, each at the right instant on the
/// days the clocks go forward and back (Europe/London and America/New_York), after a change of the
/// system's zone, and with a wall clock that is not synchronised (docs/time.md).
final class WindowTests: FeatureTestCase {
    static let grace = Duration.seconds(15 * 60)
    static let morning = DailyWindow(start: ClockTime(hour: 7, minute: 0)!, end: ClockTime(hour: 10, minute: 0)!)

    static func at(_ text: String) -> WallTime { WallTime(iso8601: text)! }

    /// Booted a day ago (so earlier check-ins of this boot have positive uptimes), clock synchronised.
    static func boot(_ text: String) -> DeviceInstant {
        DeviceInstant(wall: at(text), uptime: hour * 24, bootID: bootA, wallClockSynchronized: true)
    }

    /// A check-in of this boot at `text`.
    static func checkIn(_ text: String, boot: DeviceInstant, n: UInt64 = 900) -> CheckInRecord {
        var instant = boot
        instant.wall = at(text)
        instant.uptime = boot.uptime + (at(text) - boot.wall)
        return CheckInRecord(id: CheckInID(high: 1, low: n), at: instant, source: .button)
    }

    func makeDailyStore(zone: String?, windows: [DailyWindow] = [morning], records: [CheckInRecord], boot: DeviceInstant,
                        timeZone: TimeZoneClient = .live) -> TestStore<CheckInFeature> {
        makeStore(records: records, bootingAt: boot, timeZone: timeZone) {
            $0.schedule = .daily(DailySchedule(windows: windows, timeZone: zone))
            $0.grace = Self.grace
        }
    }

    /// Starts the store and asserts the first evaluation.
    func startDaily(_ store: TestStore<CheckInFeature>, records: [CheckInRecord], boot: DeviceInstant,
                    phase: Phase, deadline: WallTime?, localTimeUnknown: Bool = false, line: UInt = #line) async {
        let stored = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil)
        store.send(.daemonStarted, assert: { $0.isRunning = true }, line: line)
        await store.receive(.loadCheckInSettings, line: line)
        await store.receive(.loadCheckInHistory, assert: { $0.isLoadingHistory = true }, line: line)
        await store.receive(.checkInSettingsResponse(.success(stored)), assert: {
            $0.hasLoadedSettings = true
            $0.settingsVersion = 1
        }, line: line)
        await store.receive(.checkInHistoryResponse(.success(records)), assert: {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = records
            $0.phase = phase
            $0.windowDeadline = deadline
            $0.localTimeUnknown = localTimeUnknown
            if boot.wallClockSynchronized { $0.trustedWall = boot }
        }, line: line)
    }

    /// A day across a daylight-saving change: checked in during today's window, the next window
    /// starts and ends at 07:00 and 10:00 on the local clock whatever the change did.
    func assertDayAcross(zone: String, boot bootText: String, checkIn checkInText: String,
                         nextStart: String, nextEnd: String, line: UInt = #line) async {
        let boot = Self.boot(bootText)
        let last = Self.checkIn(checkInText, boot: boot)
        let store = makeDailyStore(zone: zone, records: [last], boot: boot)
        let start = Self.at(nextStart), end = Self.at(nextEnd)
        XCTAssertEqual(end - start, Self.hour * 3, "the window is three hours on the local clock", line: line)
        await startDaily(store, records: [last], boot: boot,
                         phase: .checkedIn(Countdown(deadline: end, remaining: end - boot.wall)), deadline: end, line: line)
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn, line: line)

        await clock.advance(by: start - boot.wall - .seconds(1))
        await store.expectNoAction(line: line)
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached, assert: {
            $0.phase = .reminder(Countdown(deadline: end, remaining: Self.hour * 3))
        }, line: line)
        XCTAssertEqual(store.state.buzzer, .reminder, line: line)

        await clock.advance(by: Self.hour * 3)
        await store.receive(.phaseBoundaryReached, assert: {
            $0.phase = .lastChance(Countdown(deadline: end, remaining: .zero))
        }, line: line)
        XCTAssertEqual(store.state.indicator(fault: false), .lastChance, line: line)
        XCTAssertEqual(store.state.buzzer, .lastChance, line: line)

        await clock.advance(by: Self.grace)
        await store.receive(.phaseBoundaryReached, assert: {
            $0.phase = .overdue(Countdown(deadline: end, remaining: .zero - Self.grace))
        }, line: line)
        XCTAssertEqual(store.state.indicator(fault: false), .overdue, line: line)
        XCTAssertNil(store.state.buzzer, "overdue: the people are told; the warning is over", line: line)
        await stop(store)
    }

    func testLondonSpringForward() async {
        // 29 March 2026, 01:00 GMT → 02:00 BST: 07:00 is 07:00Z the day before and 06:00Z that day.
        await assertDayAcross(zone: "Europe/London", boot: "2026-03-28T12:00:00Z", checkIn: "2026-03-28T08:00:00Z",
                              nextStart: "2026-03-29T06:00:00Z", nextEnd: "2026-03-29T09:00:00Z")
    }

    func testLondonFallBack() async {
        // 25 October 2026, 02:00 BST → 01:00 GMT: 07:00 is 06:00Z the day before and 07:00Z that day.
        await assertDayAcross(zone: "Europe/London", boot: "2026-10-24T12:00:00Z", checkIn: "2026-10-24T07:00:00Z",
                              nextStart: "2026-10-25T07:00:00Z", nextEnd: "2026-10-25T10:00:00Z")
    }

    func testNewYorkSpringForward() async {
        // 8 March 2026, 02:00 EST → 03:00 EDT: 07:00 is 12:00Z the day before and 11:00Z that day.
        await assertDayAcross(zone: "America/New_York", boot: "2026-03-07T18:00:00Z", checkIn: "2026-03-07T13:00:00Z",
                              nextStart: "2026-03-08T11:00:00Z", nextEnd: "2026-03-08T14:00:00Z")
    }

    func testNewYorkFallBack() async {
        // 1 November 2026, 02:00 EDT → 01:00 EST: 07:00 is 11:00Z the day before and 12:00Z that day.
        await assertDayAcross(zone: "America/New_York", boot: "2026-10-31T18:00:00Z", checkIn: "2026-10-31T12:00:00Z",
                              nextStart: "2026-11-01T12:00:00Z", nextEnd: "2026-11-01T15:00:00Z")
    }

    func testAWindowStartInTheSpringForwardGapStartsWhenTheClocksHaveJumped() {
        // 02:15 does not happen in New York on 8 March 2026: the window starts at 03:15 EDT (07:15Z).
        let schedule = DailySchedule(windows: [DailyWindow(start: ClockTime(hour: 2, minute: 15)!, end: ClockTime(hour: 4, minute: 0)!)],
                                     timeZone: "America/New_York")
        let date = LocalDate(year: 2026, month: 3, day: 8)
        let occurrences = schedule.occurrences(from: date, through: date, offsets: TimeZoneClient.live.offsets("America/New_York"))
        XCTAssertEqual(occurrences?.map(\.start), [Self.at("2026-03-08T07:15:00Z")])
        XCTAssertEqual(occurrences?.map(\.end), [Self.at("2026-03-08T08:00:00Z")])
        // 01:30 happens twice on 1 November 2026: the first (EDT, 05:30Z).
        let twice = DailySchedule(windows: [DailyWindow(start: ClockTime(hour: 1, minute: 30)!, end: ClockTime(hour: 3, minute: 0)!)],
                                  timeZone: "America/New_York")
        let fallBack = LocalDate(year: 2026, month: 11, day: 1)
        XCTAssertEqual(twice.occurrences(from: fallBack, through: fallBack, offsets: TimeZoneClient.live.offsets("America/New_York"))?
            .map(\.start), [Self.at("2026-11-01T05:30:00Z")])
    }

    func testAPressOutsideTheWindowDoesNotSatisfyTheNextOneButAPressAfterAMissedOneAnswersIt() async {
        let boot = Self.boot("2026-11-22T06:30:00Z")  // London, GMT: 06:30, half an hour before the window
        let early = Self.checkIn("2026-11-22T06:30:00Z", boot: boot)
        let store = makeDailyStore(zone: "Europe/London", records: [early], boot: boot)
        let end = Self.at("2026-11-22T10:00:00Z")
        // Yesterday's window was answered by nothing either, but it is the latest *ended* one that
        // counts: this morning's press answers it (late), and counts for no later window.
        await startDaily(store, records: [early], boot: boot,
                         phase: .checkedIn(Countdown(deadline: end, remaining: end - boot.wall)), deadline: end)
        await clock.advance(by: .seconds(30 * 60))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(Countdown(deadline: end, remaining: Self.hour * 3))
        }
        await clock.advance(by: Self.hour * 3)
        await store.receive(.phaseBoundaryReached) { $0.phase = .lastChance(Countdown(deadline: end, remaining: .zero)) }
        await clock.advance(by: Self.grace)
        await store.receive(.phaseBoundaryReached) { $0.phase = .overdue(Countdown(deadline: end, remaining: .zero - Self.grace)) }

        // A late press (10:15 + 1 h) answers the missed window: checked in until tomorrow's.
        await clock.advance(by: Self.hour)
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let late = CheckInRecord(id: id(1), at: boot.advanced(by: Self.hour * 4 + Self.grace + .seconds(30 * 60)), source: .button)
        let tomorrowEnd = Self.at("2026-11-23T10:00:00Z")
        await store.receive(.checkInResponse(.success(late))) {
            $0.isCheckingIn = false
            $0.history = [late, early]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(Countdown(deadline: tomorrowEnd, remaining: tomorrowEnd - late.at.wall))
            $0.windowDeadline = tomorrowEnd
        }
        await store.receive(.delegate(.checkInStored(late)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    /// The system's zone as `timedatectl set-timezone` changes it: in effect once the zone files
    /// are read again (`reload`).
    final class SystemZone: Sendable {
        private let state = Mutex((current: "Europe/London", pending: "Europe/London", reloads: 0))
        func move(to zone: String) { state.withLock { $0.pending = zone } }
        var reloads: Int { state.withLock { $0.reloads } }
        var client: TimeZoneClient {
            TimeZoneClient(
                utcOffset: { [self] zone, time in TimeZoneClient.live.utcOffset(zone ?? state.withLock { $0.current }, time) },
                reload: { [self] in state.withLock { state in
                    state.current = state.pending
                    state.reloads += 1
                } },
                systemZoneName: { [self] in state.withLock { $0.current } })
        }
    }

    func testAChangeOfTheSystemsZoneMovesTheWindowsToTheNewLocalClock() async {
        let system = SystemZone()
        let boot = Self.boot("2026-11-22T12:00:00Z")  // Sunday noon in London
        let last = Self.checkIn("2026-11-22T08:00:00Z", boot: boot)
        let store = makeDailyStore(zone: nil, records: [last], boot: boot, timeZone: system.client)
        let londonEnd = Self.at("2026-11-23T10:00:00Z")
        await startDaily(store, records: [last], boot: boot,
                         phase: .checkedIn(Countdown(deadline: londonEnd, remaining: londonEnd - boot.wall)), deadline: londonEnd)

        // An hour later the device is in New York (08:00 EST): its 07:00-10:00 window is open, and
        // this morning's London press (03:00 EST) was before it.
        await clock.advance(by: Self.hour)
        system.move(to: "America/New_York")
        let newYorkEnd = Self.at("2026-11-22T15:00:00Z")
        store.send(.wallClockChanged) {
            $0.trustedWall = boot.advanced(by: Self.hour)
            $0.phase = .reminder(Countdown(deadline: newYorkEnd, remaining: Self.hour * 2))
            $0.windowDeadline = newYorkEnd
        }
        XCTAssertEqual(system.reloads, 1, "the zone's files are read again")
        await stop(store)
    }

    func testWithoutASynchronisedClockTheDeviceAsksForAPressAndFindsTheWindowOnceItIsSynchronised() async {
        // Boot B at 1970, the last check-in (boot A, synchronised) yesterday in the window.
        let boot = DeviceInstant(wall: WallTime(secondsSinceEpoch: 30), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: false)
        var last = Self.checkIn("2026-11-21T08:00:00Z", boot: Self.boot("2026-11-22T08:30:00Z"))
        last.at.bootID = Self.bootA
        let store = makeDailyStore(zone: "Europe/London", records: [last], boot: boot)
        // One window a day: up to 27 h between presses (07:00 one day to 10:00 the next), plus an
        // hour for a clock change, less the 30 s certainly passed.
        let fallback = Self.hour * 28 - .seconds(30)
        await startDaily(store, records: [last], boot: boot,
                         phase: .reminder(Countdown(deadline: boot.wall + fallback, remaining: fallback)), deadline: nil,
                         localTimeUnknown: true)
        XCTAssertEqual(store.state.indicator(fault: false), .reminder, "never \"checked in\" without a local time")

        // NTP sets the clock: 08:30 in London, inside today's window, which nothing answered yet.
        let real = Self.at("2026-11-22T08:30:00Z")
        await clock.advance(by: .seconds(60))
        wallClock.step(by: real - (boot.wall + .seconds(60)), synchronized: true)
        let end = Self.at("2026-11-22T10:00:00Z")
        store.send(.wallClockChanged) {
            $0.trustedWall = DeviceInstant(wall: real, uptime: .seconds(90), bootID: "boot-b", wallClockSynchronized: true)
            $0.localTimeUnknown = false
            $0.windowDeadline = end
            $0.phase = .reminder(Countdown(deadline: end, remaining: end - real))
        }
        await stop(store)
    }

    func testWithNoLocalTimeOverdueComesOnlyOnceTheLongestGapHasCertainlyPassed() async {
        let boot = DeviceInstant(wall: WallTime(secondsSinceEpoch: 30), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: false)
        var last = Self.checkIn("2026-11-21T08:00:00Z", boot: Self.boot("2026-11-22T08:30:00Z"))
        last.at.bootID = Self.bootA
        let store = makeDailyStore(zone: "Europe/London", records: [last], boot: boot)
        let fallback = Self.hour * 28 - .seconds(30)
        await startDaily(store, records: [last], boot: boot,
                         phase: .reminder(Countdown(deadline: boot.wall + fallback, remaining: fallback)), deadline: nil,
                         localTimeUnknown: true)
        await clock.advance(by: fallback)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .lastChance(Countdown(deadline: boot.wall + fallback, remaining: .zero))
        }
        await clock.advance(by: Self.grace)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(Countdown(deadline: boot.wall + fallback, remaining: .zero - Self.grace))
        }
        await stop(store)
    }
}
