public import CheckInModels

extension UploadFeature {
    /// One queue's uploader: where the drain is, and the status `lifesignalctl status` and `queue` show.
    public struct State: Equatable, Sendable {
        /// What the rows are, plural, for logs and messages ("check-ins", "alerts").
        public let noun: String
        /// Where they go, for logs and status (never contains a secret).
        public let endpoint: String

        public var status: Status = .idle
        /// The outcome of the last attempt; nil before the first.
        public var lastResult: LastResult?
        /// The last failure's explanation, or what a partly successful upload left behind.
        public var lastMessage: String?
        public var lastAttempt: WallTime?
        public var lastSuccess: WallTime?
        /// When the next attempt is due (`waitingToRetry` only).
        public var nextRetry: WallTime?
        /// The backoff being waited out (`waitingToRetry` only).
        public var retryDelay: Duration?
        public var consecutiveFailures = 0
        /// Rows the target acknowledged since the daemon started.
        public var uploadedSinceStart = 0
        /// Rows the target refused for good since the daemon started.
        public var refusedSinceStart = 0

        public var isRunning = false
        /// The step of the drain in flight; nil when nothing is in flight.
        public var step: Step?
        /// A row was stored while a step was in flight: read the queue once more before resting,
        /// so a row committed just after a read began is not left waiting for the next one.
        public var drainAgain = false
        /// The head of the queue as last told to the parent (it drives the "not uploaded" LEDs).
        public var oldestPending: OldestPending = .unknown

        public init(noun: String, endpoint: String) {
            self.noun = noun
            self.endpoint = endpoint
        }
    }

    /// The uploader's state as `UplinkReport.state` spells it.
    public enum Status: String, Equatable, Sendable {
        case idle
        case uploading
        /// A transient failure: the next attempt comes when the backoff has passed.
        case waitingToRetry = "waiting_to_retry"
        /// A permanent failure: waiting for a new row or a restart.
        case stopped
    }

    /// `UplinkReport.lastResult`.
    public enum LastResult: String, Equatable, Sendable {
        case ok
        case transientFailure = "transient_failure"
        case permanentFailure = "permanent_failure"
    }

    /// One drain step at a time: read a batch, send it, record the target's answer.
    public enum Step: Equatable, Sendable {
        case readingQueue
        /// The batch in flight, by id, in queue order.
        case sending([CheckInID])
        case recording(Answer)
    }

    /// What the target did with a batch, restricted to the rows sent.
    public struct Answer: Equatable, Sendable {
        public var sent: Int
        public var acknowledged: [CheckInID]
        public var refused: [RefusedItem]

        public init(sent: Int, acknowledged: [CheckInID], refused: [RefusedItem]) {
            self.sent = sent
            self.acknowledged = acknowledged
            self.refused = refused
        }
    }

    /// The queue's head as reported to the parent.
    public enum OldestPending: Equatable, Sendable {
        /// Not read since the start.
        case unknown
        case empty
        case item(CheckInID)
    }
}
