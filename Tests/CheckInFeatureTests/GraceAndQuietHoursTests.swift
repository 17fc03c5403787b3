import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceClock
import DeviceClockLive
import TestSupport
import XCTest

/// The last-chance warning between the deadline and overdue, and quiet hours across midnight: the
/// reminder's beeps are silent in them, the last-chance warning never is.
final class GraceAndQuietHoursTests: FeatureTestCase {
    static let grace = Duration.seconds(15 * 60)

    func testTheGraceComesBetweenTheDeadlineAndOverdueAndBeepsUntilItEnds() async {
        let last = Self.record(ago: .zero)
        let store = makeStore(records: [last], adjust: { $0.grace = Self.grace })
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 24)))
        XCTAssertNil(store.state.buzzer)
        await clock.advance(by: Self.hour * 22)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2, now: Self.hour * 22))
        }
        XCTAssertEqual(store.state.buzzer, .reminder)
        await clock.advance(by: Self.hour * 2 - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .lastChance(self.countdown(remaining: .zero, now: Self.hour * 24))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .lastChance)
        XCTAssertEqual(store.state.buzzer, .lastChance)
        await clock.advance(by: Self.grace - .seconds(1))
        await store.expectNoAction()
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(self.countdown(remaining: .zero - Self.grace, now: Self.hour * 24 + Self.grace))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)
        XCTAssertNil(store.state.buzzer)
        await stop(store)
    }

    func testAPressInTheGraceChecksInAndNobodyIsTold() async {
        let last = Self.record(ago: Self.hour * 24 + .seconds(60))
        let store = makeStore(records: [last], adjust: { $0.grace = Self.grace })
        await start(store, records: [last], expectPhase: .lastChance(countdown(remaining: .zero - .seconds(60))))
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = CheckInRecord(id: id(1), at: Self.start, source: .button)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record, last]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    func testQuietHoursAcrossMidnightSilenceTheReminderButNeverTheLastChance() async {
        // Sunday 21:00 in London (GMT); quiet 22:00-07:00; the reminder starts at 23:00, the deadline
        // is 01:00, overdue at 01:15.
        let boot = DeviceInstant(wall: WallTime(iso8601: "2026-11-22T21:00:00Z")!, uptime: Self.hour * 24, bootID: Self.bootA,
                                 wallClockSynchronized: true)
        var last = CheckInRecord(id: CheckInID(high: 1, low: 900), at: boot, source: .button)
        last.at.wall = WallTime(iso8601: "2026-11-22T01:00:00Z")!
        last.at.uptime = boot.uptime - Self.hour * 20
        let store = makeStore(records: [last], bootingAt: boot, timeZone: .live) {
            $0.grace = Self.grace
            $0.timeZone = "Europe/London"
            $0.quietHours = QuietHours(from: ClockTime(hour: 22, minute: 0)!, to: ClockTime(hour: 7, minute: 0)!)
        }
        func deadline(_ remaining: Duration) -> Countdown {
            Countdown(deadline: WallTime(iso8601: "2026-11-23T01:00:00Z")!, remaining: remaining)
        }
        let stored = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil)
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.settingsVersion = 1
        }
        await store.receive(.checkInHistoryResponse(.success([last]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = [last]
            $0.trustedWall = boot
            $0.phase = .checkedIn(deadline(Self.hour * 4))
        }
        XCTAssertFalse(store.state.isQuietNow)

        await clock.advance(by: Self.hour)
        await store.receive(.quietHoursBoundaryReached) { $0.isQuietNow = true }
        await clock.advance(by: Self.hour)
        await store.receive(.phaseBoundaryReached) { $0.phase = .reminder(deadline(Self.hour * 2)) }
        XCTAssertEqual(store.state.indicator(fault: false), .reminder, "the LEDs keep their meaning")
        XCTAssertNil(store.state.buzzer, "the reminder is silent in quiet hours")

        await clock.advance(by: Self.hour * 2)
        await store.receive(.phaseBoundaryReached) { $0.phase = .lastChance(deadline(.zero)) }
        XCTAssertEqual(store.state.buzzer, .lastChance, "the last chance is never silenced")
        await clock.advance(by: Self.grace)
        await store.receive(.phaseBoundaryReached) { $0.phase = .overdue(deadline(.zero - Self.grace)) }

        // 07:00: the quiet hours end the morning after they began.
        await clock.advance(by: Self.hour * 6 - Self.grace)
        await store.receive(.quietHoursBoundaryReached) { $0.isQuietNow = false }
        await stop(store)
    }

    func testQuietHoursNeverSilenceAPingOrAHelpAlertsCancelWindow() {
        var state = CheckInFeature.State()
        state.isQuietNow = true
        state.phase = .reminder(Countdown(deadline: Self.start.wall, remaining: Self.hour))
        XCTAssertNil(state.buzzer)
        state.pendingPings = [PendingPing(id: "p1", responderID: "r", responderName: "Sam", createdAt: "2026-11-22T08:00:00Z")]
        XCTAssertEqual(state.buzzer, .ping)
        state.alert.window = AlertState.Window(requestedAt: Self.start, source: .button)
        XCTAssertEqual(state.buzzer, .alertCancelWindow)
    }
}
