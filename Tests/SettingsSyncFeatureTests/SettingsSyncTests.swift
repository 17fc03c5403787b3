import CheckInModels
import CheckInStoreClient
import ComposableCore
import ConcurrencyExtras
import SettingsSyncFeature
import TestSupport
import UplinkClient
import XCTest

/// The newer version wins; the backend's settings are validated and saved before the parent hears
/// of them; one sync at a time with exactly one queued; failures are logged, not retried.
@MainActor
final class SettingsSyncTests: XCTestCase {
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    static let hour = Duration.seconds(3600)
    static let configured = CheckInSettings(interval: hour * 24, reminder: hour)
    let offline = UplinkFailure(.transient, "could not connect to the backend: connection refused")

    var backend: FakeSettingsBackend!
    var settingsStore: FakeSettingsStore!

    func makeStore() -> TestStore<SettingsSyncFeature> {
        backend = FakeSettingsBackend()
        settingsStore = FakeSettingsStore()
        let store = TestStore(initialState: SettingsSyncFeature.State(),
                              reducer: SettingsSyncFeature(uplink: backend.client, store: settingsStore.client))
        store.send(.start) { $0.isRunning = true }
        return store
    }

    func local(_ version: Int64, _ settings: CheckInSettings = .default) -> StoredSettings {
        StoredSettings(settings: settings, version: version, appliedFromConfig: Self.configured)
    }

    func request(_ local: StoredSettings) -> SettingsSyncFeature.Request {
        SettingsSyncFeature.Request(local: local, policy: .standard)
    }

    func stop(_ store: TestStore<SettingsSyncFeature>) async {
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }

    func testTheBackendsNewerSettingsAreSavedWithItsVersionBeforeTheParentIsTold() async {
        let store = makeStore()
        let remote = RemoteSettings(settings: CheckInSettings(interval: Self.hour * 16, reminder: Self.hour * 2), version: 3)
        backend.fetch(.success(remote))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        let saved = StoredSettings(settings: remote.settings, version: 3, appliedFromConfig: Self.configured)
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .saving(saved) }
        XCTAssertEqual(settingsStore.saved, [], "not yet")
        let saving = store.state
        await store.receive(.backendSettingsSaved(.success(saved))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(SettingsSyncFeature.log(.backendSettingsSaved(.success(saved)), before: saving, after: store.state), [
            LogEntry(.notice, "settings from the backend applied: interval 16h, reminder 2h", metadata: ["version": "3"]),
        ])
        await store.receive(.delegate(.settingsFromBackendSaved(saved)))
        XCTAssertEqual(settingsStore.saved, [saved], "the config's last applied values are kept")
        XCTAssertEqual(backend.offered, [])
        await stop(store)
    }

    func testAwayModeTravelsWithTheSettingsEitherWay() async {
        let store = makeStore()
        // The family set away mode in the app: a newer version carrying it is saved with it.
        let plan = AwayPlan(since: WallTime(secondsSinceEpoch: 1_795_000_000), until: WallTime(secondsSinceEpoch: 1_795_300_000))
        let remote = RemoteSettings(settings: .default, version: 5, away: plan)
        backend.fetch(.success(remote))
        store.send(.syncRequested(local: local(4), policy: .standard)) {
            $0.syncing = self.request(self.local(4))
            $0.step = .fetching
        }
        let saved = StoredSettings(settings: .default, version: 5, appliedFromConfig: Self.configured, away: plan)
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .saving(saved) }
        await store.receive(.backendSettingsSaved(.success(saved))) {
            $0.syncing = nil
            $0.step = nil
        }
        await store.receive(.delegate(.settingsFromBackendSaved(saved)))

        // The device ended it (a press): its newer version without away is offered.
        var ended = local(6)
        ended.away = nil
        backend.fetch(.success(remote))
        backend.push(.success(.accepted(RemoteSettings(settings: .default, version: 6))))
        store.send(.syncRequested(local: ended, policy: .standard)) {
            $0.syncing = self.request(ended)
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .offering(RemoteSettings(settings: .default, version: 6)) }
        await store.receive(.settingsOffered(.success(.accepted(RemoteSettings(settings: .default, version: 6))))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(backend.offered, [RemoteSettings(settings: .default, version: 6, away: nil)])

        // The same version with another away plan on the backend: the backend's wins, as for any setting.
        let moved = RemoteSettings(settings: .default, version: 6, away: plan)
        backend.fetch(.success(moved))
        store.send(.syncRequested(local: ended, policy: .standard)) {
            $0.syncing = self.request(ended)
            $0.step = .fetching
        }
        let movedSaved = StoredSettings(settings: .default, version: 6, appliedFromConfig: Self.configured, away: plan)
        await store.receive(.settingsFetched(.success(moved))) { $0.step = .saving(movedSaved) }
        await store.receive(.backendSettingsSaved(.success(movedSaved))) {
            $0.syncing = nil
            $0.step = nil
        }
        await store.receive(.delegate(.settingsFromBackendSaved(movedSaved)))
        await stop(store)
    }

    func testOnTheSameVersionTheBackendsDifferentSettingsWin() async {
        let store = makeStore()
        let remote = RemoteSettings(settings: CheckInSettings(interval: Self.hour * 8, reminder: Self.hour), version: 2)
        backend.fetch(.success(remote))
        store.send(.syncRequested(local: local(2), policy: .standard)) {
            $0.syncing = self.request(self.local(2))
            $0.step = .fetching
        }
        let saved = StoredSettings(settings: remote.settings, version: 2, appliedFromConfig: Self.configured)
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .saving(saved) }
        await store.receive(.backendSettingsSaved(.success(saved))) {
            $0.syncing = nil
            $0.step = nil
        }
        await store.receive(.delegate(.settingsFromBackendSaved(saved)))
        await stop(store)
    }

    func testEqualSettingsOnBothSidesNeedNothing() async {
        let store = makeStore()
        backend.fetch(.success(RemoteSettings(settings: .default, version: 4)))
        store.send(.syncRequested(local: local(4), policy: .standard)) {
            $0.syncing = self.request(self.local(4))
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 4)))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(backend.offered, [])
        XCTAssertEqual(settingsStore.saved, [])
        await stop(store)
    }

    func testTheDevicesNewerSettingsAreOfferedAndABackendWithNewerOnesHasThemApplied() async {
        let store = makeStore()
        let mine = local(5, CheckInSettings(interval: Self.hour * 48, reminder: Self.hour * 6))
        let offered = RemoteSettings(settings: mine.settings, version: 5)
        backend.fetch(.success(RemoteSettings(settings: .default, version: 4)), .success(RemoteSettings(settings: .default, version: 4)))
        backend.push(.success(.accepted(offered)))
        store.send(.syncRequested(local: mine, policy: .standard)) {
            $0.syncing = self.request(mine)
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 4)))) {
            $0.step = .offering(offered)
        }
        let offering = store.state
        await store.receive(.settingsOffered(.success(.accepted(offered)))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(SettingsSyncFeature.log(.settingsOffered(.success(.accepted(offered))), before: offering, after: store.state), [
            LogEntry(.info, "settings sent to the backend", metadata: ["version": "5"]),
        ])

        // Someone changed them in the app meanwhile: the backend answers 409 with its newer ones.
        let newer = RemoteSettings(settings: CheckInSettings(interval: Self.hour * 16, reminder: Self.hour * 4), version: 6)
        backend.push(.success(.backendIsNewer(newer)))
        store.send(.syncRequested(local: mine, policy: .standard)) {
            $0.syncing = self.request(mine)
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 4)))) {
            $0.step = .offering(offered)
        }
        let saved = StoredSettings(settings: newer.settings, version: 6, appliedFromConfig: Self.configured)
        await store.receive(.settingsOffered(.success(.backendIsNewer(newer)))) { $0.step = .saving(saved) }
        await store.receive(.backendSettingsSaved(.success(saved))) {
            $0.syncing = nil
            $0.step = nil
        }
        await store.receive(.delegate(.settingsFromBackendSaved(saved)))
        XCTAssertEqual(backend.offered, [offered, offered])
        XCTAssertEqual(settingsStore.saved, [saved])
        await stop(store)
    }

    func testTheBackendsSettingsOutsideThePolicyAreRefusedAndNotSaved() async {
        let store = makeStore()
        let remote = RemoteSettings(settings: CheckInSettings(interval: .seconds(600), reminder: .seconds(60)), version: 9)
        backend.fetch(.success(remote))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(remote))) {
            $0.syncing = nil
            $0.step = nil
        }
        let problem = SettingsError("interval 10m is outside the allowed range 30m–7d (offered: 8h, 16h, 24h, 48h)")
        await store.receive(.delegate(.settingsFromBackendRefused(remote, problem)))
        XCTAssertEqual(SettingsSyncFeature.log(.delegate(.settingsFromBackendRefused(remote, problem)), before: store.state,
                                               after: store.state), [
            LogEntry(.error, "settings from the backend not applied (version 9): \(problem.message)"),
        ])
        XCTAssertEqual(settingsStore.saved, [])
        await stop(store)
    }

    func testFailuresAreLoggedAndNotRetriedOnATimer() async {
        let store = makeStore()
        backend.fetch(.failure(offline))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        let fetching = store.state
        await store.receive(.settingsFetched(.failure(offline))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(SettingsSyncFeature.log(.settingsFetched(.failure(offline)), before: fetching, after: store.state), [
            LogEntry(.info, "settings not synced with the backend: \(offline.message)"),
        ])
        await store.expectNoAction()
        XCTAssertEqual(backend.fetchCount, 1, "no retry of its own")

        // Offering fails.
        let mine = local(3)
        let offered = RemoteSettings(settings: mine.settings, version: 3)
        backend.fetch(.success(RemoteSettings(settings: .default, version: 1)))
        backend.push(.failure(offline))
        store.send(.syncRequested(local: mine, policy: .standard)) {
            $0.syncing = self.request(mine)
            $0.step = .fetching
        }
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 1)))) {
            $0.step = .offering(offered)
        }
        let offering = store.state
        await store.receive(.settingsOffered(.failure(offline))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(SettingsSyncFeature.log(.settingsOffered(.failure(offline)), before: offering, after: store.state), [
            LogEntry(.info, "settings not offered to the backend: \(offline.message)"),
        ])

        // Saving fails: the parent is not told, so nothing reloads settings that are not stored.
        let remote = RemoteSettings(settings: CheckInSettings(interval: Self.hour * 8, reminder: Self.hour), version: 7)
        backend.fetch(.success(remote))
        let full = StoreFailure(.full, "database or disk is full")
        settingsStore.fail(with: full)
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        let saved = StoredSettings(settings: remote.settings, version: 7, appliedFromConfig: Self.configured)
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .saving(saved) }
        let saving = store.state
        await store.receive(.backendSettingsSaved(.failure(full))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(SettingsSyncFeature.log(.backendSettingsSaved(.failure(full)), before: saving, after: store.state), [
            LogEntry(.error, "settings from the backend could not be saved: database or disk is full"),
        ])
        await stop(store)
    }

    func testASyncAskedForWhileOneRunsQueuesExactlyOneMoreWithTheNewestSettings() async {
        let store = makeStore()
        backend.gate.shut()
        backend.fetch(.success(RemoteSettings(settings: .default, version: 1)), .success(RemoteSettings(settings: .default, version: 1)))
        let changed = local(3, CheckInSettings(interval: Self.hour * 8, reminder: Self.hour))
        backend.push(.success(.accepted(RemoteSettings(settings: changed.settings, version: 3))))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        store.send(.syncRequested(local: local(2), policy: .standard)) { $0.queued = self.request(self.local(2)) }
        store.send(.syncRequested(local: changed, policy: .standard)) { $0.queued = self.request(changed) }
        backend.gate.open()
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 1)))) {
            $0.syncing = self.request(changed)
            $0.step = .fetching
            $0.queued = nil
        }
        let offered = RemoteSettings(settings: changed.settings, version: 3)
        await store.receive(.settingsFetched(.success(RemoteSettings(settings: .default, version: 1)))) {
            $0.step = .offering(offered)
        }
        await store.receive(.settingsOffered(.success(.accepted(offered)))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(backend.fetchCount, 2, "three requests, two syncs")
        XCTAssertEqual(backend.offered, [offered])
        await stop(store)
    }

    func testAQueuedSyncOlderThanTheSettingsJustAppliedStartsFromThoseAndAppliesNothingTwice() async {
        let store = makeStore()
        backend.gate.shut()
        let remote = RemoteSettings(settings: CheckInSettings(interval: Self.hour * 16, reminder: Self.hour), version: 4)
        backend.fetch(.success(remote), .success(remote))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        store.send(.syncRequested(local: local(1), policy: .standard)) { $0.queued = self.request(self.local(1)) }
        backend.gate.open()
        let saved = StoredSettings(settings: remote.settings, version: 4, appliedFromConfig: Self.configured)
        await store.receive(.settingsFetched(.success(remote))) { $0.step = .saving(saved) }
        await store.receive(.backendSettingsSaved(.success(saved))) {
            $0.syncing = self.request(saved)
            $0.step = .fetching
            $0.queued = nil
        }
        await store.receive(.delegate(.settingsFromBackendSaved(saved)))
        await store.receive(.settingsFetched(.success(remote))) {
            $0.syncing = nil
            $0.step = nil
        }
        XCTAssertEqual(settingsStore.saved, [saved], "saved once")
        await stop(store)
    }

    func testStopAbandonsTheSyncAndForgetsTheQueuedOneAndNothingRunsUntilTheStart() async {
        let store = makeStore()
        backend.gate.shut()
        backend.fetch(.success(RemoteSettings(settings: CheckInSettings(interval: Self.hour * 8, reminder: Self.hour), version: 5)))
        store.send(.syncRequested(local: local(1), policy: .standard)) {
            $0.syncing = self.request(self.local(1))
            $0.step = .fetching
        }
        store.send(.syncRequested(local: local(1), policy: .standard)) { $0.queued = self.request(self.local(1)) }
        store.send(.stop) {
            $0.isRunning = false
            $0.syncing = nil
            $0.step = nil
            $0.queued = nil
        }
        backend.gate.open()
        await store.expectNoAction()
        await store.finish()
        XCTAssertEqual(settingsStore.saved, [], "the answer came after the stop")
        store.send(.syncRequested(local: local(1), policy: .standard))
        XCTAssertEqual(backend.fetchCount, 1)
    }

    func testRoutineStepsLogNothing() {
        var fetching = SettingsSyncFeature.State()
        fetching.step = .fetching
        let idle = SettingsSyncFeature.State()
        XCTAssertEqual(SettingsSyncFeature.log(.syncRequested(local: local(1), policy: .standard), before: idle, after: fetching), [])
        XCTAssertEqual(SettingsSyncFeature.log(.settingsFetched(.success(RemoteSettings(settings: .default, version: 1))),
                                               before: fetching, after: idle), [])
        // A dropped answer (no sync was fetching) is not logged.
        XCTAssertEqual(SettingsSyncFeature.log(.settingsFetched(.failure(offline)), before: idle, after: idle), [])
    }
}
