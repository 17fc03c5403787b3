public import CheckInModels

/// How the upload of check-ins to the backend is going (`lifesignalctl status` and `queue`).
public struct UplinkReport: Codable, Hashable, Sendable {
    /// The backend's base URL.
    public var endpoint: String
    /// idle, uploading, waiting_to_retry (transient failure), stopped (permanent failure: needs a fix).
    public var state: String
    /// ok, transient_failure or permanent_failure; nil before the first attempt.
    public var lastResult: String?
    /// The last failure's explanation, with the server's message when it sent one.
    public var lastMessage: String?
    /// ISO 8601 UTC times.
    public var lastAttempt: String?
    public var lastSuccess: String?
    /// When the next attempt is due (waiting_to_retry only).
    public var nextRetry: String?
    public var consecutiveFailures: Int
    /// Check-ins acknowledged by the backend since the daemon started.
    public var uploadedSinceStart: Int
    /// Check-ins the target refused for good (by id) since the daemon started.
    public var refusedSinceStart: Int? = nil
    /// The device heartbeat to this target; nil when it sends none.
    public var heartbeat: HeartbeatReport? = nil

    public init(endpoint: String, state: String, lastResult: String?, lastMessage: String?, lastAttempt: String?,
                lastSuccess: String?, nextRetry: String?, consecutiveFailures: Int, uploadedSinceStart: Int) {
        self.endpoint = endpoint
        self.state = state
        self.lastResult = lastResult
        self.lastMessage = lastMessage
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.nextRetry = nextRetry
        self.consecutiveFailures = consecutiveFailures
        self.uploadedSinceStart = uploadedSinceStart
    }
}

/// `lifesignalctl queue`: the check-ins waiting for upload and the uplink's state.
public struct QueueReport: Codable, Hashable, Sendable {
    /// Check-ins stored but not yet acknowledged by the backend.
    public var depth: Int
    /// The oldest of them (uploads go oldest first).
    public var oldestPending: CheckInReport?
    /// Nil when no uplink is configured (an offline device: the queue only grows).
    public var uplink: UplinkReport?
    /// Check-ins the backend refused for good (oldest first, at most 20): out of the queue, kept on the device.
    public var refused: [RefusedCheckInReport]? = nil
    /// How many the backend refused in all.
    public var refusedCount: Int? = nil
    /// The healthchecks check's queue; nil without a healthchecks check-in check.
    public var healthchecks: TargetQueueReport? = nil
    /// Whether a backend is configured (`depth` and `uplink` are about it); nil from older daemons.
    public var hasBackend: Bool? = nil

    public init(depth: Int, oldestPending: CheckInReport?, uplink: UplinkReport?) {
        self.depth = depth
        self.oldestPending = oldestPending
        self.uplink = uplink
    }
}

/// Responders' pings (`lifesignalctl pings`, and `status`): pending ones and the answers' upload.
public struct PingsReport: Codable, Hashable, Sendable {
    /// Pings no press has answered yet, oldest first; the next check-in answers all of them.
    public var pending: [PendingPing]
    /// Answers stored but not yet acknowledged by the backend (-1 when the store cannot be read).
    public var responsesWaiting: Int
    /// idle, listening (a long poll is open), waiting_to_retry; nil on an offline device.
    public var listener: String?
    /// Why listening last failed, if it did.
    public var listenerMessage: String?
    /// The upload of the answers; nil on an offline device.
    public var responseUpload: UplinkReport?

    public init(pending: [PendingPing], responsesWaiting: Int, listener: String?, listenerMessage: String?,
                responseUpload: UplinkReport?) {
        self.pending = pending
        self.responsesWaiting = responsesWaiting
        self.listener = listener
        self.listenerMessage = listenerMessage
        self.responseUpload = responseUpload
    }
}

/// A check-in a target refused by id, with the target's message.
public struct RefusedCheckInReport: Codable, Hashable, Sendable {
    public var checkIn: CheckInReport
    public var message: String

    public init(checkIn: CheckInReport, message: String) {
        self.checkIn = checkIn
        self.message = message
    }
}

/// A further target's queue (a healthchecks check): its own depth, refusals and state.
public struct TargetQueueReport: Codable, Hashable, Sendable {
    public var depth: Int
    public var refused: [RefusedCheckInReport]
    public var state: UplinkReport?

    public init(depth: Int, refused: [RefusedCheckInReport], state: UplinkReport?) {
        self.depth = depth
        self.refused = refused
        self.state = state
    }
}

/// The periodic "device alive" message to a target.
public struct HeartbeatReport: Codable, Hashable, Sendable {
    /// Where it goes (a ping URL is shown shortened: it is a secret).
    public var endpoint: String
    public var periodSeconds: Int64
    /// ISO 8601 UTC times.
    public var lastAttempt: String?
    public var lastSuccess: String?
    /// Why the last one failed; nil when it succeeded (or none was sent yet).
    public var lastError: String?

    public init(endpoint: String, periodSeconds: Int64, lastAttempt: String?, lastSuccess: String?, lastError: String?) {
        self.endpoint = endpoint
        self.periodSeconds = periodSeconds
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.lastError = lastError
    }
}
