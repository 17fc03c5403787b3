import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceClock
import Logging
import UplinkClient

/// Listens for responders' pings: a long poll (`GET /v1/pings?wait=…`) that the backend holds open
/// until a ping arrives, so a ping reaches the device within seconds without a 1 s poll.
///
/// New pings are stored first (a restart still shows them) and then handed to the feature, which
/// lights the ping pattern. Failures back off with `RetryPolicy` (exponential, full jitter, capped,
/// `Retry-After` honoured); a permanent failure (e.g. a backend without pings) waits the longest
/// backoff before asking again. `stop()` returns at once: a poll in flight is abandoned.
@MainActor
final class PingListener {
    enum State: String {
        case idle
        /// A long poll is open.
        case listening
        case waitingToRetry = "waiting_to_retry"
    }

    /// How long the backend may hold a poll; the request's timeout is this plus `[uplink] timeout`.
    /// Below the idle timeouts of common proxies and NATs (30–60 s).
    static let longPollWait = Duration.seconds(25)
    /// The shortest cycle of polls that return nothing, so a backend that ignores `wait` and answers
    /// at once is not asked in a tight loop.
    static let shortestEmptyPoll = Duration.seconds(5)

    private let client: UplinkClient
    private let storeClient: CheckInStoreClient
    private let clock: DeviceClock
    private let policy: RetryPolicy
    private let logger: Logger
    private let deliver: @MainActor ([PendingPing]) -> Void
    private var random = SystemRandomNumberGenerator()

    private(set) var state = State.idle
    private(set) var lastMessage: String?
    private(set) var consecutiveFailures = 0
    /// The backend's cursor; nil after a start, so every unanswered ping is fetched again (the store
    /// ignores the ones it already has, answered or not).
    private var cursor: String?
    private var task: Task<Void, Never>?

    init(client: UplinkClient, storeClient: CheckInStoreClient, clock: DeviceClock, policy: RetryPolicy, logger: Logger,
         deliver: @escaping @MainActor ([PendingPing]) -> Void) {
        self.client = client
        self.storeClient = storeClient
        self.clock = clock
        self.policy = policy
        self.logger = logger
        self.deliver = deliver
    }

    func start() {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// Stops at once; a poll in flight finishes on the transport's thread and is ignored.
    func stop() {
        task?.cancel()
        task = nil
        state = .idle
    }

    private func run() async {
        while !Task.isCancelled {
            let started = clock.now().uptime
            state = .listening
            let result = await client.pendingPings(cursor, Self.longPollWait)
            guard !Task.isCancelled else { return }
            let pause: Duration
            switch result {
            case let .success(poll):
                consecutiveFailures = 0
                lastMessage = nil
                cursor = poll.cursor
                if !poll.pings.isEmpty { await received(poll.pings) }
                pause = poll.pings.isEmpty ? Self.shortestEmptyPoll - (clock.now().uptime - started) : .zero
            case let .failure(failure):
                consecutiveFailures += 1
                lastMessage = failure.message
                pause = failure.kind == .transient
                    ? policy.delay(afterFailures: consecutiveFailures, retryAfter: failure.retryAfter, using: &random)
                    : policy.cap
                logger.warning("listening for pings failed, asking again in \(DurationText.format(pause)): \(failure.message)",
                               metadata: ["failures": "\(consecutiveFailures)"])
            }
            guard pause > .zero else { continue }
            if consecutiveFailures > 0 { state = .waitingToRetry }
            do { try await clock.sleep(pause) } catch { return }
        }
    }

    /// Stores the pings, then shows them. A store that cannot keep them still lets them show: the
    /// backend has them too, and sends them again after a restart.
    private func received(_ pings: [PendingPing]) async {
        logger.notice("pinged by \(pings.map(\.responderName).joined(separator: ", "))", metadata: ["pings": "\(pings.count)"])
        do {
            deliver(try await storeClient.savePings(pings))
        } catch {
            logger.error("pings could not be stored (shown anyway): \(error.message)")
            deliver(pings)
        }
    }
}
