import CheckInFeature
import CheckInModels
import CheckInStoreClient
import XCTest

/// Deadlines survive restarts: on start the feature lands in the right phase at once.
final class StartupTests: FeatureTestCase {
    func testFreshDeviceHasNeverCheckedIn() async {
        let store = makeStore(stored: nil)
        await start(store, stored: nil, expectPhase: .neverCheckedIn)
        XCTAssertEqual(store.state.indicator(fault: false), .neverCheckedIn)
        await stop(store)
    }

    func testRestartWithinIntervalIsCheckedInAndWakesAtReminderStart() async {
        let last = Self.record(ago: Self.hour * 10)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 14)))
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)

        await clock.advance(by: Self.hour * 12)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .reminder(self.countdown(remaining: Self.hour * 2, now: Self.hour * 12))
        }
        await stop(store)
    }

    func testRestartInsideReminderWindowIsReminder() async {
        let last = Self.record(ago: Self.hour * 23)
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .reminder(countdown(remaining: Self.hour)))
        XCTAssertEqual(store.state.indicator(fault: false), .reminder)
        await stop(store)
    }

    func testOverdueDeviceThatRebootsIsStillOverdue() async {
        // Checked in 30 h ago, on the previous boot: only the wall clock links the two.
        let last = Self.record(ago: Self.hour * 30, bootID: "boot-before")
        let store = makeStore(records: [last])
        await start(store, records: [last], expectPhase: .overdue(countdown(remaining: .zero - Self.hour * 6)))
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)
        await stop(store)
    }

    func testAStoreThatCannotBeReadIsReportedToTheDevice() async {
        let store = makeStore()
        let failure = StoreFailure(.corrupt, "lifesignal.sqlite is not a database")
        fake.contents.withLock { $0.settings = nil }
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(nil))) { $0.hasLoadedSettings = true }
        await store.receive(.checkInHistoryResponse(.success([]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.phase = .neverCheckedIn
        }
        store.send(.checkInHistoryResponse(.failure(failure)))
        await store.receive(.delegate(.loadFailed(failure)))
        XCTAssertEqual(store.state.indicator(fault: false), .neverCheckedIn)
        await stop(store)
    }

    func testAStoreThatOpensLaterLoadsItsHistory() async {
        // The daemon's store supervisor reloads once a store that could not be opened opens.
        let last = Self.record(ago: Self.hour)
        let store = makeStore(records: [last])
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(fake.settings))) {
            $0.hasLoadedSettings = true
            $0.settingsVersion = 1
        }
        await store.receive(.checkInHistoryResponse(.success([last]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = [last]
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 23))
        }
        let readOnly = StoreFailure(.readOnly, "cannot write x")
        store.send(.checkInHistoryResponse(.failure(readOnly)))
        await store.receive(.delegate(.loadFailed(readOnly)))
        store.send(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInHistoryResponse(.success([last]))) {
            $0.isLoadingHistory = false
        }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        await stop(store)
    }

    func testEditedConfigSettingsAreAppliedAndSaved() async {
        let configured = CheckInSettings(interval: Self.hour * 16, reminder: Self.hour)
        let last = Self.record(ago: Self.hour * 10)
        let stored = StoredSettings(settings: .default, version: 3, appliedFromConfig: nil)
        let store = makeStore(records: [last], stored: stored, configured: configured)
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.appliedFromConfig = configured
            $0.settingsVersion = 4
            $0.unsavedSettings = StoredSettings(settings: $0.settings, version: 4, appliedFromConfig: $0.appliedFromConfig)
        }
        await store.receive(.checkInHistoryResponse(.success([last]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = [last]
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 6))
        }
        let saved = StoredSettings(settings: configured, version: 4, appliedFromConfig: configured)
        await store.receive(.settingsSaveResponse(.success(saved))) { $0.unsavedSettings = nil }
        await store.receive(.delegate(.settingsSaved(saved)))
        XCTAssertEqual(fake.settings, saved)
        await stop(store)
    }

    func testUneditedConfigDoesNotOverrideSettingsChangedOnTheDevice() async {
        let configured = CheckInSettings(interval: Self.hour * 16, reminder: Self.hour)
        let chosenLater = CheckInSettings(interval: Self.hour * 8, reminder: Self.hour * 2)
        let stored = StoredSettings(settings: chosenLater, version: 7, appliedFromConfig: configured)
        let store = makeStore(stored: stored, configured: configured)
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.appliedFromConfig = configured
            $0.settingsVersion = 7
            $0.settings = chosenLater
        }
        await store.receive(.checkInHistoryResponse(.success([]))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.phase = .neverCheckedIn
        }
        await stop(store)
    }
}
