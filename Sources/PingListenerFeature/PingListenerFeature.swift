public import Backoff
public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import UplinkClient

/// Listens for responders' pings: a long poll (`GET /v1/pings?wait=…`) that the backend holds open
/// until a ping arrives, so a ping reaches the device within seconds without a 1 s poll.
///
/// New pings are stored first (a restart still shows them) and then handed to the parent, which
/// lights the ping pattern and asks the notifications to sync. Failures back off (`Backoff`,
/// `Retry-After` honoured); a permanent failure (a backend without pings, say) waits the longest
/// backoff before asking again. Polls that return nothing at once are spaced at least
/// `shortestEmptyPoll` apart, so a backend that ignores `wait` is not asked in a tight loop.
public struct PingListenerFeature: Reducer {
    /// `pendingPings` is used.
    public var uplink: UplinkClient
    /// `savePings` is used.
    public var store: CheckInStoreClient
    public var clock: DeviceClock
    public var backoff: Backoff
    /// A number in the range given (the jitter of the backoff); tests pass a fixed one.
    public var random: @Sendable (ClosedRange<Int64>) -> Int64

    /// How long the backend may hold a poll; the request's timeout is this plus `[uplink] timeout`.
    /// Below the idle timeouts of common proxies and NATs (30–60 s).
    public static let longPollWait = Duration.seconds(25)
    /// The shortest cycle of polls that return nothing.
    public static let shortestEmptyPoll = Duration.seconds(5)

    public init(uplink: UplinkClient, store: CheckInStoreClient, clock: DeviceClock, backoff: Backoff,
                random: @escaping @Sendable (ClosedRange<Int64>) -> Int64) {
        self.uplink = uplink
        self.store = store
        self.clock = clock
        self.backoff = backoff
        self.random = random
    }

    /// The listener and how it goes (`PingsReport.listener`, `listenerMessage`).
    public struct State: Equatable, Sendable {
        public var status: Status = .idle
        public var isRunning = false
        public var step: Step?
        /// The last failure, until a poll succeeds.
        public var lastFailure: UplinkFailure?
        public var consecutiveFailures = 0
        /// The backend's cursor; nil after a start, so every unanswered ping is fetched again (the
        /// store ignores the ones it already has, answered or not).
        public var cursor: String?

        public init() {}

        /// Why listening last failed, if it did (`PingsReport.listenerMessage`).
        public var lastMessage: String? { lastFailure?.message }
    }

    /// `PingsReport.listener`.
    public enum Status: String, Equatable, Sendable {
        case idle
        /// A long poll is open (or its pings are being stored, or the next one is due shortly).
        case listening
        case waitingToRetry = "waiting_to_retry"
    }

    public enum Step: Equatable, Sendable {
        /// A poll is open since this uptime.
        case polling(since: Duration)
        /// These pings arrived and are being stored.
        case storing([PendingPing])
        /// The next poll comes after this pause.
        case pausing(Duration)
    }

    public enum Action: Equatable, Sendable {
        /// Starts listening, from no cursor.
        case start
        /// Stops at once: a poll in flight is abandoned and its answer dropped.
        case stop
        /// The network may be back: a poll waiting out the backoff of a transient failure goes now.
        case networkChanged
        /// The pause before the next poll has passed.
        case pollDue
        case pollResponse(Result<PingPoll, UplinkFailure>)
        /// The store kept the pings and returned every ping still pending, or failed.
        case pingsSaved(Result<[PendingPing], StoreFailure>)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// Pings to show: every pending one as stored, or the new ones if the store failed
            /// (the backend has them too, and sends them again after a restart).
            case pingsReceived([PendingPing])
        }
    }

    public enum CancelID {
        public static let poll = EffectID("ping-poll")
        public static let pause = EffectID("ping-pause")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.isRunning else { return .none }
            state.isRunning = true
            state.cursor = nil
            return poll(&state)

        case .stop:
            state.isRunning = false
            state.status = .idle
            state.step = nil
            return .merge(.cancel(id: CancelID.poll), .cancel(id: CancelID.pause))

        case .networkChanged:
            guard state.isRunning, state.status == .waitingToRetry, case .pausing = state.step,
                  state.lastFailure?.kind == .transient
            else { return .none }
            return .merge(.cancel(id: CancelID.pause), poll(&state))

        case .pollDue:
            guard state.isRunning, case .pausing = state.step else { return .none }
            return poll(&state)

        case let .pollResponse(.success(answer)):
            guard case let .polling(since) = state.step else { return .none }
            state.consecutiveFailures = 0
            state.lastFailure = nil
            state.cursor = answer.cursor
            guard answer.pings.isEmpty else {
                state.step = .storing(answer.pings)
                return .run { [store, pings = answer.pings] send in
                    await send(.pingsSaved(await Result { () async throws(StoreFailure) in try await store.savePings(pings) }))
                }
                .cancellable(id: CancelID.poll)
            }
            return pause(Self.shortestEmptyPoll - (clock.uptime() - since), &state)

        case let .pollResponse(.failure(failure)):
            guard case .polling = state.step else { return .none }
            state.consecutiveFailures += 1
            state.lastFailure = failure
            let delay = failure.kind == .transient
                ? backoff.delay(afterFailures: state.consecutiveFailures, retryAfter: failure.retryAfter, random: random)
                : backoff.cap
            return pause(delay, &state)

        case let .pingsSaved(result):
            guard case let .storing(received) = state.step else { return .none }
            let pending = (try? result.get()) ?? received
            return .merge(.send(.delegate(.pingsReceived(pending))), poll(&state))

        case .delegate:
            return .none
        }
    }

    private func poll(_ state: inout State) -> Effect<Action> {
        state.status = .listening
        state.step = .polling(since: clock.uptime())
        return .run { [uplink, cursor = state.cursor] send in
            await send(.pollResponse(await uplink.pendingPings(cursor, Self.longPollWait)))
        }
        .cancellable(id: CancelID.poll)
    }

    private func pause(_ delay: Duration, _ state: inout State) -> Effect<Action> {
        guard delay > .zero else { return poll(&state) }
        if state.consecutiveFailures > 0 { state.status = .waitingToRetry }
        state.step = .pausing(delay)
        return .run { [clock] send in
            do {
                try await clock.sleep(delay)
                await send(.pollDue)
            } catch {}  // cancelled: the network came back, or stopping
        }
        .cancellable(id: CancelID.pause, cancelInFlight: true)
    }

    /// What an action did that the operator should read in the log.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        switch (action, before.step) {
        case let (.pollResponse(.success(answer)), .polling?) where !answer.pings.isEmpty:
            return [LogEntry(.notice, "pinged by \(answer.pings.map(\.responderName).joined(separator: ", "))",
                             metadata: ["pings": "\(answer.pings.count)"])]
        case let (.pollResponse(.failure(failure)), .polling?):
            let delay: Duration = if case let .pausing(delay) = after.step { delay } else { .zero }
            return [LogEntry(.warning, "listening for pings failed, asking again in \(DurationText.humane(delay)): \(failure.message)",
                             metadata: ["failures": "\(after.consecutiveFailures)"])]
        case let (.pingsSaved(.failure(failure)), .storing?):
            return [LogEntry(.error, "pings could not be stored (shown anyway): \(failure.message)")]
        default:
            return []
        }
    }
}
