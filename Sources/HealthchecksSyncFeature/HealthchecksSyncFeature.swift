public import Backoff
public import CheckInModels
public import ComposableCore
public import DeviceClock
public import UplinkClient

/// Keeps the device's checks on a healthchecks instance as its settings say (with `[healthchecks]
/// api_key_file`): at start and after every settings change (the CLI, the config, the backend) it
/// finds the checks by slug, creates the missing ones and sets their timeout and grace
/// (`CheckTimings`). Transient failures back off and retry; a refusal (a wrong or read-only key,
/// the project's check limit) waits for the next settings change or a restart, and says why.
public struct HealthchecksSyncFeature: Reducer {
    public var management: HealthchecksManagementClient
    public var clock: DeviceClock
    public var backoff: Backoff
    public var random: @Sendable (ClosedRange<Int64>) -> Int64
    /// `[healthchecks] heartbeat`: the heartbeat check's period.
    public var heartbeat: Duration
    /// `[healthchecks] slug_prefix`.
    public var slugPrefix: String

    public init(management: HealthchecksManagementClient, clock: DeviceClock, backoff: Backoff,
                random: @escaping @Sendable (ClosedRange<Int64>) -> Int64, heartbeat: Duration, slugPrefix: String) {
        self.management = management
        self.clock = clock
        self.backoff = backoff
        self.random = random
        self.heartbeat = heartbeat
        self.slugPrefix = slugPrefix
    }

    public struct State: Equatable, Sendable {
        /// The instance, for status and logs.
        public let endpoint: String
        public var isRunning = false
        /// What the checks should be, from the latest settings; empty until they are loaded.
        public var wanted: [CheckSpec] = []
        /// The checks as the last successful sync left them.
        public var checks: [ManagedCheck] = []
        /// The specs of the last successful sync: the checks are in step when these are `wanted`.
        public var synced: [CheckSpec] = []
        /// The specs of the sync on its way.
        public var syncingSpecs: [CheckSpec] = []
        public var status: Status = .idle
        /// A sync is on its way.
        public var isSyncing = false
        /// The settings changed while a sync was on its way: sync once more when it is back.
        public var syncAgain = false
        public var consecutiveFailures = 0
        public var lastError: String?
        public var lastSuccess: WallTime?
        public var nextRetry: WallTime?

        public init(endpoint: String) {
            self.endpoint = endpoint
        }

        /// The checks have the timeout and grace the device's settings ask for.
        public var isInStep: Bool { !wanted.isEmpty && synced == wanted }
    }

    public enum Status: String, Equatable, Sendable {
        case idle
        case syncing
        /// A transient failure: the next attempt comes after the backoff.
        case waitingToRetry = "waiting_to_retry"
        /// Refused for good: waiting for a settings change or a restart.
        case refused
    }

    public enum Action: Equatable, Sendable {
        case start
        case stop
        /// The device's settings as they now are (loaded, changed, taken from the backend).
        case settingsChanged(CheckInSettings)
        /// The settings with the grace, the daily windows and away mode (what the device sends).
        case planChanged(CheckInCheckPlan)
        /// The network may be back: a sync waiting out its backoff happens now.
        case networkChanged
        /// Something may have changed a check behind the device's back (a check-in's ping resumed
        /// the check-in check that away mode paused): put it back as wanted.
        case resyncRequested
        case retryDue
        case syncResponse(Result<[ManagedCheck], UplinkFailure>)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The checks exist with the wanted timeout and grace (pings waiting for them can go).
            case inStep([ManagedCheck])
        }
    }

    public enum CancelID {
        public static let sync = EffectID("healthchecks-sync")
        public static let retry = EffectID("healthchecks-sync-retry")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.isRunning else { return .none }
            state.isRunning = true
            return state.wanted.isEmpty ? .none : sync(&state)

        case .stop:
            state.isRunning = false
            state.isSyncing = false
            state.syncAgain = false
            state.nextRetry = nil
            if state.status != .refused { state.status = .idle }
            return .merge(.cancel(id: CancelID.sync), .cancel(id: CancelID.retry))

        case let .settingsChanged(settings):
            return reduce(into: &state, action: .planChanged(CheckInCheckPlan(settings: settings)))

        case let .planChanged(plan):
            let wanted = CheckTimings.specs(plan: plan, heartbeat: heartbeat, slugPrefix: slugPrefix)
            guard wanted != state.wanted else { return .none }
            state.wanted = wanted
            guard state.isRunning else { return .none }
            if state.isSyncing {
                state.syncAgain = true
                return .none
            }
            // A refusal or a backoff is worth one new attempt for new settings.
            return .merge(.cancel(id: CancelID.retry), sync(&state))

        case .networkChanged:
            guard state.isRunning, state.status == .waitingToRetry, !state.isSyncing else { return .none }
            return .merge(.cancel(id: CancelID.retry), sync(&state))

        case .resyncRequested:
            guard state.isRunning, !state.wanted.isEmpty, state.status != .refused else { return .none }
            if state.isSyncing {
                state.syncAgain = true
                return .none
            }
            return .merge(.cancel(id: CancelID.retry), sync(&state))

        case .retryDue:
            guard state.isRunning, state.status == .waitingToRetry, !state.isSyncing else { return .none }
            return sync(&state)

        case let .syncResponse(.success(checks)):
            guard state.isSyncing else { return .none }
            state.isSyncing = false
            state.checks = checks
            state.synced = state.syncingSpecs
            state.consecutiveFailures = 0
            state.lastError = nil
            state.nextRetry = nil
            state.status = .idle
            state.lastSuccess = clock.now().wall
            if state.syncAgain, state.synced != state.wanted { return sync(&state) }
            state.syncAgain = false
            return .send(.delegate(.inStep(checks)))

        case let .syncResponse(.failure(failure)):
            guard state.isSyncing else { return .none }
            state.isSyncing = false
            state.consecutiveFailures += 1
            state.lastError = failure.message
            if state.syncAgain {
                state.syncAgain = false
                return sync(&state)
            }
            switch failure.kind {
            case .permanent:
                state.status = .refused
                state.nextRetry = nil
                return .none
            case .transient:
                let delay = backoff.delay(afterFailures: state.consecutiveFailures, retryAfter: failure.retryAfter, random: random)
                state.status = .waitingToRetry
                state.nextRetry = clock.now().wall + delay
                return .run { [clock] send in
                    do {
                        try await clock.sleep(delay)
                        await send(.retryDue)
                    } catch {}  // cancelled: new settings, the network back, or stopping
                }
                .cancellable(id: CancelID.retry, cancelInFlight: true)
            }

        case .delegate:
            return .none
        }
    }

    private func sync(_ state: inout State) -> Effect<Action> {
        state.isSyncing = true
        state.syncAgain = false
        state.status = .syncing
        state.nextRetry = nil
        state.syncingSpecs = state.wanted
        return .run { [management, specs = state.wanted] send in
            await send(.syncResponse(await management.sync(specs)))
        }
        .cancellable(id: CancelID.sync, cancelInFlight: true)
    }
}
