public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import UplinkClient

/// Keeps the check-in settings in step with the backend: the side with the newer version wins.
///
/// Backend newer: its settings are validated against the device's policy, saved with the backend's
/// version, and the parent is told, so the check-in feature reloads them and the deadline moves at
/// once. Device newer (changed with `lifesignalctl`): they are offered with `PUT`; a 409 means the
/// backend has newer ones, which are applied instead. The parent owns the settings and asks for a
/// sync with them once they are loaded, after each stored check-in and after each local change; a
/// sync asked for while one runs queues exactly one more. Failures are logged and tried again on the
/// next of those events (no timer of its own).
public struct SettingsSyncFeature: Reducer {
    /// `fetchSettings` and `pushSettings` are used.
    public var uplink: UplinkClient
    /// `saveSettings` is used.
    public var store: CheckInStoreClient

    public init(uplink: UplinkClient, store: CheckInStoreClient) {
        self.uplink = uplink
        self.store = store
    }

    public struct State: Equatable, Sendable {
        public var isRunning = false
        /// The sync in flight (with the device's settings it started from) and its step.
        public var syncing: Request?
        public var step: Step?
        /// Asked for while a sync ran: the one sync that follows, with the newest settings asked with.
        public var queued: Request?

        public init() {}
    }

    /// The device's settings as the parent has them, and the policy the backend's must meet.
    public struct Request: Equatable, Sendable {
        public var local: StoredSettings
        public var policy: SettingsPolicy

        public init(local: StoredSettings, policy: SettingsPolicy) {
            self.local = local
            self.policy = policy
        }
    }

    public enum Step: Equatable, Sendable {
        case fetching
        /// The device's settings are newer and are being offered.
        case offering(RemoteSettings)
        /// The backend's settings are newer and are being saved.
        case saving(StoredSettings)
    }

    public enum Action: Equatable, Sendable {
        case start
        /// Stops: a sync in flight is abandoned (its answer dropped) and a queued one forgotten.
        case stop
        /// Sync with these settings (the parent's, once loaded).
        case syncRequested(local: StoredSettings, policy: SettingsPolicy)
        case settingsFetched(Result<RemoteSettings, UplinkFailure>)
        case settingsOffered(Result<SettingsPushOutcome, UplinkFailure>)
        /// The backend's settings, saved with its version (or why not).
        case backendSettingsSaved(Result<StoredSettings, StoreFailure>)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The backend's settings are stored: reload the check-in settings.
            case settingsFromBackendSaved(StoredSettings)
            /// The backend's settings are outside this device's policy: not applied.
            case settingsFromBackendRefused(RemoteSettings, SettingsError)
        }
    }

    public enum CancelID {
        public static let sync = EffectID("settings-sync")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.isRunning = true
            return .none

        case .stop:
            state.isRunning = false
            state.syncing = nil
            state.step = nil
            state.queued = nil
            return .cancel(id: CancelID.sync)

        case let .syncRequested(local, policy):
            guard state.isRunning else { return .none }
            let request = Request(local: local, policy: policy)
            guard state.syncing == nil else {
                state.queued = request
                return .none
            }
            return sync(request, &state)

        case let .settingsFetched(.success(remote)):
            guard state.step == .fetching, let request = state.syncing else { return .none }
            let local = request.local
            if remote.version > local.version
                || (remote.version == local.version && (remote.settings != local.settings || remote.away != local.away)) {
                return apply(remote, request, &state)
            }
            guard local.version > remote.version else { return finish(&state) }
            let offered = RemoteSettings(settings: local.settings, version: local.version, away: local.away)
            state.step = .offering(offered)
            return .run { [uplink] send in
                await send(.settingsOffered(await uplink.pushSettings(offered)))
            }
            .cancellable(id: CancelID.sync)

        case .settingsFetched(.failure):
            guard state.step == .fetching else { return .none }
            return finish(&state)

        case let .settingsOffered(.success(.backendIsNewer(newer))):
            guard case .offering = state.step, let request = state.syncing else { return .none }
            return apply(newer, request, &state)

        case .settingsOffered(.success(.accepted)), .settingsOffered(.failure):
            guard case .offering = state.step else { return .none }
            return finish(&state)

        case let .backendSettingsSaved(.success(stored)):
            guard case .saving = state.step else { return .none }
            // A sync queued with settings older than these would only apply these again.
            if let queued = state.queued, queued.local.version < stored.version {
                state.queued?.local = stored
            }
            return .merge(.send(.delegate(.settingsFromBackendSaved(stored))), finish(&state))

        case .backendSettingsSaved(.failure):
            guard case .saving = state.step else { return .none }
            return finish(&state)

        case .delegate:
            return .none
        }
    }

    private func sync(_ request: Request, _ state: inout State) -> Effect<Action> {
        state.syncing = request
        state.step = .fetching
        return .run { [uplink] send in
            await send(.settingsFetched(await uplink.fetchSettings()))
        }
        .cancellable(id: CancelID.sync)
    }

    private func apply(_ remote: RemoteSettings, _ request: Request, _ state: inout State) -> Effect<Action> {
        if case let .failure(problem) = request.policy.validate(remote.settings) {
            return .merge(.send(.delegate(.settingsFromBackendRefused(remote, problem))), finish(&state))
        }
        let stored = StoredSettings(settings: remote.settings, version: remote.version,
                                    appliedFromConfig: request.local.appliedFromConfig, away: remote.away)
        state.step = .saving(stored)
        return .run { [store] send in
            await send(.backendSettingsSaved(await Result { () async throws(StoreFailure) in
                try await store.saveSettings(stored)
                return stored
            }))
        }
        .cancellable(id: CancelID.sync)
    }

    /// Ends the sync in flight and starts the queued one, if any.
    private func finish(_ state: inout State) -> Effect<Action> {
        state.syncing = nil
        state.step = nil
        guard let next = state.queued else { return .none }
        state.queued = nil
        return sync(next, &state)
    }

    /// What an action did that the operator should read in the log.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        switch (action, before.step) {
        case let (.settingsFetched(.failure(failure)), .fetching?):
            return [LogEntry(.info, "settings not synced with the backend: \(failure.message)")]
        case let (.settingsOffered(.failure(failure)), .offering?):
            return [LogEntry(.info, "settings not offered to the backend: \(failure.message)")]
        case let (.settingsOffered(.success(.accepted)), .offering(offered)?):
            return [LogEntry(.info, "settings sent to the backend", metadata: ["version": "\(offered.version)"])]
        case let (.delegate(.settingsFromBackendRefused(remote, problem)), _):
            return [LogEntry(.error, "settings from the backend not applied (version \(remote.version)): \(problem.message)")]
        case let (.backendSettingsSaved(.success(stored)), .saving?):
            return [LogEntry(.notice, "settings from the backend applied: \(stored.settings)",
                             metadata: ["version": "\(stored.version)"])]
        case let (.backendSettingsSaved(.failure(failure)), .saving?):
            return [LogEntry(.error, "settings from the backend could not be saved: \(failure.message)")]
        default:
            return []
        }
    }
}
