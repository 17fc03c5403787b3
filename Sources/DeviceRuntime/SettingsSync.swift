import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import Logging
import UplinkClient

/// Keeps the check-in settings in step with the backend: the side with the newer version wins.
///
/// Backend newer: its settings are validated against the device's policy, saved with the backend's
/// version, and the feature reloads them (`loadCheckInSettings` → `checkInSettingsResponse`, as in
/// the app), so the deadline moves at once. Device newer (changed with `lifesignalctl`): they are
/// offered with `PUT`; a 409 means the backend has newer ones, which are applied instead.
/// Runs once the stored settings are loaded, after each stored check-in and after each local change.
/// Failures are logged and tried again on the next of those events (no timer of its own).
@MainActor
final class SettingsSync {
    private let client: UplinkClient
    /// Weak: the store's observer holds this sync (through `UplinkEvents`), so a strong reference
    /// back would keep both alive for good; the device owns the store.
    private weak var store: Store<CheckInFeature>?
    private let storeClient: CheckInStoreClient
    private let logger: Logger
    private var running = false
    private var requestedAgain = false

    init(client: UplinkClient, store: Store<CheckInFeature>, storeClient: CheckInStoreClient, logger: Logger) {
        self.client = client
        self.store = store
        self.storeClient = storeClient
        self.logger = logger
    }

    /// Starts a sync, or queues one more if one is running.
    func sync() {
        guard let store, store.state.hasLoadedSettings else { return }
        guard !running else {
            requestedAgain = true
            return
        }
        running = true
        Task {
            repeat {
                requestedAgain = false
                await syncOnce(store)
            } while requestedAgain
            running = false
        }
    }

    private func syncOnce(_ store: Store<CheckInFeature>) async {
        let local = RemoteSettings(settings: store.state.settings, version: store.state.settingsVersion)
        let remote: RemoteSettings
        switch await client.fetchSettings() {
        case let .failure(failure):
            logger.info("settings not synced with the backend: \(failure.message)")
            return
        case let .success(fetched):
            remote = fetched
        }
        if remote.version > local.version || (remote.version == local.version && remote.settings != local.settings) {
            await apply(remote, to: store)
        } else if local.version > remote.version {
            switch await client.pushSettings(local) {
            case let .failure(failure):
                logger.info("settings not offered to the backend: \(failure.message)")
            case .success(.accepted):
                logger.info("settings sent to the backend", metadata: ["version": "\(local.version)"])
            case let .success(.backendIsNewer(newer)):
                await apply(newer, to: store)
            }
        }
    }

    private func apply(_ remote: RemoteSettings, to store: Store<CheckInFeature>) async {
        if case let .failure(problem) = store.state.policy.validate(remote.settings) {
            logger.error("settings from the backend not applied (version \(remote.version)): \(problem.message)")
            return
        }
        let stored = StoredSettings(settings: remote.settings, version: remote.version,
                                    appliedFromConfig: store.state.appliedFromConfig)
        do {
            try await storeClient.saveSettings(stored)
        } catch {
            logger.error("settings from the backend could not be saved: \(error.message)")
            return
        }
        store.send(.loadCheckInSettings)
        logger.notice("settings from the backend applied: \(remote.settings)", metadata: ["version": "\(remote.version)"])
    }
}
