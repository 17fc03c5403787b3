import CheckInFeature
import CheckInModels
import CheckInStoreClient
import XCTest

/// Every phase transition, driven only by scheduled wake-ups (no periodic tick).
final class CountdownTests: FeatureTestCase {
    func testADayInCheckedInWakesTwice() async {
        let last = Self.record(ago: .zero)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 24)))

        // Nothing happens for 22 hours: no action may arrive before the reminder starts.
        await clock.advance(by: Self.hour * 22 - .seconds(1))
        await clock.advance(by: .seconds(1))
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2, now: Self.hour * 22))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .reminder)

        await clock.advance(by: Self.hour * 2)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(self.countdown(remaining: .zero, now: Self.hour * 24))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)

        // Overdue has no further boundary: a week passes without a wake-up.
        await clock.advance(by: Self.hour * (7 * 24))
        await stop(store)
    }

    func testCheckInWhileOverdueStartsANewCountdown() async {
        let last = Self.record(ago: Self.hour * 25)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .overdue(countdown(remaining: .zero - Self.hour)))
        store.send(.checkInRequested(.cli)) { $0.isCheckingIn = true }
        let record = CheckInRecord(id: id(1), at: Self.start, source: .cli)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record, last]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await clock.advance(by: Self.hour * 22)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2 - .milliseconds(1500), now: Self.hour * 22 + .milliseconds(1500)))
        }
        await stop(store)
    }

    func testShorterIntervalMidCountdownMovesTheDeadlineFromTheLastCheckIn() async {
        let last = Self.record(ago: .zero)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 24)))
        await clock.advance(by: Self.hour * 10)

        let newSettings = CheckInSettings(interval: Self.hour * 16, reminder: Self.hour * 2)
        store.send(.intervalSelected(Self.hour * 16)) {
            $0.settings = newSettings
            $0.settingsVersion = 2
            $0.unsavedSettings = StoredSettings(settings: $0.settings, version: 2, appliedFromConfig: $0.appliedFromConfig)
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 6, now: Self.hour * 10))
        }
        let saved = StoredSettings(settings: newSettings, version: 2, appliedFromConfig: nil)
        await store.receive(.settingsSaveResponse(.success(saved))) { $0.unsavedSettings = nil }
        await store.receive(.delegate(.settingsSaved(saved)))
        XCTAssertEqual(fake.settings, saved)

        // The old wake-up (at 22 h) was replaced by one at the new reminder start (14 h).
        await clock.advance(by: Self.hour * 4)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2, now: Self.hour * 14))
        }
        await stop(store)
    }

    func testIntervalShorterThanTimeSinceCheckInIsOverdueAtOnce() async {
        let last = Self.record(ago: Self.hour * 10)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 14)))
        let newSettings = CheckInSettings(interval: Self.hour * 8, reminder: Self.hour * 2)
        store.send(.intervalSelected(Self.hour * 8)) {
            $0.settings = newSettings
            $0.settingsVersion = 2
            $0.unsavedSettings = StoredSettings(settings: $0.settings, version: 2, appliedFromConfig: $0.appliedFromConfig)
            $0.phase = .overdue(self.countdown(remaining: .zero - Self.hour * 2))
        }
        let saved = StoredSettings(settings: newSettings, version: 2, appliedFromConfig: nil)
        await store.receive(.settingsSaveResponse(.success(saved))) { $0.unsavedSettings = nil }
        await store.receive(.delegate(.settingsSaved(saved)))
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)
        await stop(store)
    }

    func testLongerReminderMidCountdownEntersTheReminderWindowAtOnce() async {
        let last = Self.record(ago: Self.hour * 20)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 4)))
        let newSettings = CheckInSettings(interval: Self.hour * 24, reminder: Self.hour * 6)
        store.send(.reminderSelected(Self.hour * 6)) {
            $0.settings = newSettings
            $0.settingsVersion = 2
            $0.unsavedSettings = StoredSettings(settings: $0.settings, version: 2, appliedFromConfig: $0.appliedFromConfig)
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 4))
        }
        let saved = StoredSettings(settings: newSettings, version: 2, appliedFromConfig: nil)
        await store.receive(.settingsSaveResponse(.success(saved))) { $0.unsavedSettings = nil }
        await store.receive(.delegate(.settingsSaved(saved)))
        await clock.advance(by: Self.hour * 4)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(self.countdown(remaining: .zero, now: Self.hour * 4))
        }
        await stop(store)
    }

    func testInvalidSelectionsAreRejectedWithAClearMessage() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)

        store.send(.reminderSelected(Self.hour * 24))
        await store.receive(.delegate(.settingsRejected(SettingsError("reminder 24h must be shorter than the interval 24h"))))

        store.send(.intervalSelected(.seconds(90)))
        await store.receive(.delegate(.settingsRejected(SettingsError("interval 1m30s is not a whole number of minutes"))))

        store.send(.intervalSelected(Self.hour * (8 * 24)))
        await store.receive(.delegate(.settingsRejected(SettingsError(
            "interval 8d is outside the allowed range 30m–7d (offered: 8h, 16h, 24h, 48h)"))))
        XCTAssertEqual(store.state.settings, .default, "nothing changed")
        XCTAssertEqual(fake.settings?.version, 1, "nothing saved")

        // Any whole number of minutes within bounds is fine, e.g. 12 h 30 min with 45 min.
        let odd = CheckInSettings(interval: .seconds(45_000), reminder: .seconds(2_700))
        store.send(.settingsSelected(odd)) {
            $0.settings = odd
            $0.settingsVersion = 2
            $0.unsavedSettings = StoredSettings(settings: $0.settings, version: 2, appliedFromConfig: $0.appliedFromConfig)
        }
        let saved = StoredSettings(settings: odd, version: 2, appliedFromConfig: nil)
        await store.receive(.settingsSaveResponse(.success(saved))) { $0.unsavedSettings = nil }
        await store.receive(.delegate(.settingsSaved(saved)))
        await stop(store)
    }
}
