public import Backoff
public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock

/// Whether the check-in store can keep the device's word, and what the device does until it can.
///
/// The store proves it can write at start-up (a full disk is a fault before anyone presses), every
/// write elsewhere reports how it went, and a problem is retried on `Backoff.local` until it is
/// gone: the device recovers by itself once space is freed or the file system is writable again.
/// A problem clears only when its cause is gone — a write succeeded — never by a dismissal.
///
/// A store file deleted or replaced while running (`StoreFailure.Kind.moved`) is recovered at once:
/// the file at the path is opened (created if missing) and every row the old handle still holds is
/// copied into it, then the rest of the device reloads from it.
public struct StoreHealthFeature: Reducer {
    public var maintenance: StoreMaintenanceClient
    public var clock: DeviceClock
    public var backoff: Backoff

    public init(maintenance: StoreMaintenanceClient, clock: DeviceClock, backoff: Backoff = .local) {
        self.maintenance = maintenance
        self.clock = clock
        self.backoff = backoff
    }

    public struct State: Equatable, Sendable {
        /// What is wrong with the store now; nil when it works (or has not been tried yet).
        public var problem: StoreProblem?
        /// The store has proved it can write since the daemon started.
        public var provenWritable = false
        /// The open file is no longer the one at the path: recovery, not a probe, is what helps.
        public var needsRecovery = false
        public var isProbing = false
        public var isRecovering = false
        public var consecutiveFailures = 0
        /// When the next attempt is due (wall time, for status), while one is scheduled.
        public var nextAttempt: WallTime?
        public var isRunning = false

        public init() {}
    }

    public enum Action: Equatable, Sendable {
        /// The daemon starts: prove the store can write before anyone presses.
        case start
        case stop
        /// A read or a write elsewhere (a check-in, settings, an alert) failed.
        case operationFailed(StoreFailure)
        /// A write elsewhere reached the disk: the store can write.
        case writeSucceeded
        case retryDue
        case probeResponse(Result<StoreProbeReport, StoreFailure>)
        case recoverResponse(Result<StoreRecoveryReport, StoreFailure>)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The store writes (again): what waited can be saved and loaded now.
            case writable
            /// The file at the path is the store again, with the rows the old handle held: load
            /// everything from it afresh.
            case recovered(StoreRecoveryReport)
            /// Opening found a damaged file and moved it aside (never deleted); where it went.
            case replacedDamagedFile(String)
        }
    }

    enum CancelID {
        static let retry = EffectID("store-retry")
        static let attempt = EffectID("store-attempt")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.isRunning = true
            return state.needsRecovery ? recover(&state) : probe(&state)

        case .stop:
            state.isRunning = false
            state.nextAttempt = nil
            return .merge(.cancel(id: CancelID.retry), .cancel(id: CancelID.attempt))

        case let .operationFailed(failure):
            return failed(failure, &state)

        case .writeSucceeded:
            guard !state.needsRecovery else { return .none }
            return works(&state)

        case .retryDue:
            state.nextAttempt = nil
            return state.needsRecovery ? recover(&state) : probe(&state)

        case let .probeResponse(.success(report)):
            state.isProbing = false
            let replaced: Effect<Action> = report.replacedDamagedFile.map { .send(.delegate(.replacedDamagedFile($0))) } ?? .none
            return .merge(replaced, works(&state))

        case let .probeResponse(.failure(failure)):
            state.isProbing = false
            return failed(failure, &state)

        case let .recoverResponse(.success(report)):
            state.isRecovering = false
            state.needsRecovery = false
            return .merge(.send(.delegate(.recovered(report))), works(&state))

        case let .recoverResponse(.failure(failure)):
            state.isRecovering = false
            return failed(failure, &state)

        case .delegate:
            return .none
        }
    }

    /// The store wrote: the problem is over, the retry is not needed.
    private func works(_ state: inout State) -> Effect<Action> {
        let wasFailing = state.problem != nil || !state.provenWritable
        state.problem = nil
        state.provenWritable = true
        state.consecutiveFailures = 0
        state.nextAttempt = nil
        guard wasFailing else { return .none }
        return .merge(.cancel(id: CancelID.retry), .send(.delegate(.writable)))
    }

    private func failed(_ failure: StoreFailure, _ state: inout State) -> Effect<Action> {
        if failure.kind == .moved {
            state.needsRecovery = true
            state.problem = StoreProblem(failure, since: state.problem?.since ?? clock.now().wall)
            // Recover at once: every press meanwhile is refused.
            return state.isRecovering ? .none : recover(&state)
        }
        state.problem = StoreProblem(failure, since: state.problem?.since ?? clock.now().wall)
        state.consecutiveFailures += 1
        guard state.isRunning, state.nextAttempt == nil else { return .none }
        // A retry already scheduled stays where it is: a press must not push it further away.
        let delay = backoff.delay(afterFailures: state.consecutiveFailures, random: { $0.lowerBound })
        state.nextAttempt = clock.now().wall + delay
        return .run { [clock] send in
            do {
                try await clock.sleep(delay)
                await send(.retryDue)
            } catch {}  // the store works again, or stopping
        }
        .cancellable(id: CancelID.retry, cancelInFlight: true)
    }

    private func probe(_ state: inout State) -> Effect<Action> {
        guard !state.isProbing else { return .none }
        state.isProbing = true
        return .run { [maintenance] send in
            await send(.probeResponse(await Result { () async throws(StoreFailure) in try await maintenance.probe() }))
        }
        .cancellable(id: CancelID.attempt)
    }

    private func recover(_ state: inout State) -> Effect<Action> {
        guard !state.isRecovering else { return .none }
        state.isRecovering = true
        return .run { [maintenance] send in
            await send(.recoverResponse(await Result { () async throws(StoreFailure) in try await maintenance.recover() }))
        }
        .cancellable(id: CancelID.attempt)
    }
}
