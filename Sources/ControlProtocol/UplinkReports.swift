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
