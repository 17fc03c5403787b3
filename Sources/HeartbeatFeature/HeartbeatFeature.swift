public import CheckInModels
public import ComposableCore
public import DeviceClock
public import UplinkClient

/// Tells a target every period that the device is alive, so it can tell "device offline" from
/// "check-in missed" (docs/uplink.md). One beat at the start, then one per period: one wake-up per
/// period and none in between. A beat that fails is not retried on a timer of its own (the next
/// period brings the next one), except that the network coming back sends one at once.
public struct HeartbeatFeature: Reducer {
    /// `sendHeartbeat` is used (the backend's, or a healthchecks check's).
    public var uplink: UplinkClient
    public var clock: DeviceClock
    /// How far behind the upload queue is, for the heartbeat's `queueDepth`.
    public var queueDepth: @Sendable () async -> Int

    public init(uplink: UplinkClient, clock: DeviceClock, queueDepth: @escaping @Sendable () async -> Int) {
        self.uplink = uplink
        self.clock = clock
        self.queueDepth = queueDepth
    }

    /// The heartbeat to one target and how it went (`HeartbeatReport`).
    public struct State: Equatable, Sendable {
        /// Where it goes, for logs and status (a healthchecks URL shortened: it is a secret).
        public let endpoint: String
        /// From the configuration, which allows 1 s to 24 h.
        public let period: Duration
        public var isRunning = false
        /// A beat is on its way.
        public var isSending = false
        public var lastAttempt: WallTime?
        public var lastSuccess: WallTime?
        /// Why the last beat failed; nil when it was delivered (or none was sent yet).
        public var lastError: String?
        /// The last beat was refused for good (a wrong URL, a removed check): retrying the same
        /// cannot help, so it is a condition in `status` and an error in the log, not weather.
        public var isRefused = false

        public init(endpoint: String, period: Duration) {
            self.endpoint = endpoint
            self.period = period
        }
    }

    public enum Action: Equatable, Sendable {
        /// Sends the first beat now (the device has started), then one every period.
        case start
        /// Stops: the timer and a beat on its way are cancelled.
        case stop
        /// A period has passed since the last scheduled beat.
        case periodElapsed
        /// The network may be back: if the last beat failed, the next one goes now (and the period
        /// starts again from it).
        case networkChanged
        /// The beat that was sent, or why it failed.
        case heartbeatSent(Result<DeviceHeartbeat, UplinkFailure>)
    }

    public enum CancelID {
        public static let beat = EffectID("heartbeat-beat")
        public static let period = EffectID("heartbeat-period")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.isRunning else { return .none }
            state.isRunning = true
            return .merge(beat(&state), nextPeriod(state.period))

        case .stop:
            state.isRunning = false
            state.isSending = false
            return .merge(.cancel(id: CancelID.beat), .cancel(id: CancelID.period))

        case .periodElapsed:
            guard state.isRunning else { return .none }
            // A beat still on its way (a slow target) is this period's: no second one behind it.
            return .merge(state.isSending ? .none : beat(&state), nextPeriod(state.period))

        case .networkChanged:
            guard state.isRunning, state.lastError != nil, !state.isSending else { return .none }
            return .merge(beat(&state), nextPeriod(state.period))

        case .heartbeatSent(.success):
            guard state.isSending else { return .none }
            state.isSending = false
            state.lastSuccess = clock.now().wall
            state.lastError = nil
            state.isRefused = false
            return .none

        case let .heartbeatSent(.failure(failure)):
            guard state.isSending else { return .none }
            state.isSending = false
            state.lastError = failure.message
            state.isRefused = failure.kind == .permanent
            return .none
        }
    }

    private func beat(_ state: inout State) -> Effect<Action> {
        let now = clock.now()
        state.lastAttempt = now.wall
        state.isSending = true
        return .run { [uplink, queueDepth] send in
            let heartbeat = DeviceHeartbeat(bootID: now.bootID, uptime: now.uptime, queueDepth: await queueDepth())
            await send(.heartbeatSent(await uplink.sendHeartbeat(heartbeat).map { heartbeat }))
        }
        .cancellable(id: CancelID.beat)
    }

    /// The one wake-up of the period (replacing any earlier one).
    private func nextPeriod(_ period: Duration) -> Effect<Action> {
        .run { [clock] send in
            do {
                try await clock.sleep(period)
                await send(.periodElapsed)
            } catch {}  // cancelled: a beat started early, or stopping
        }
        .cancellable(id: CancelID.period, cancelInFlight: true)
    }

    /// What an action did that the operator should read in the log: one line per period while
    /// beats fail (enough to see an outage, not a flood), and one when they get through again.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        guard case let .heartbeatSent(result) = action, before.isSending else { return [] }
        switch result {
        case .success:
            guard before.lastError != nil else { return [] }
            return [LogEntry(.notice, "heartbeat to \(after.endpoint) delivered again")]
        case let .failure(failure) where failure.kind == .permanent:
            return [LogEntry(.error, "heartbeat to \(after.endpoint) REFUSED (tried again in \(DurationText.humane(after.period)); "
                             + "fix the URL or the check): \(failure.message)")]
        case let .failure(failure):
            return [LogEntry(.info, "heartbeat not delivered (next in \(DurationText.humane(after.period))): \(failure.message)")]
        }
    }
}
