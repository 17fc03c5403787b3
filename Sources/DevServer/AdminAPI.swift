public import DeviceAPI

/// One check-in as the dev server stored it (`GET /admin/check-ins`).
public struct StoredCheckIn: Codable, Hashable, Sendable {
    public var deviceId: String
    public var checkIn: UploadedCheckIn
    public var receivedAt: String
    /// How many times it arrived; the server keeps it once whatever this says.
    public var receipts: Int
}

/// One help alert as the dev server stored it (`GET /admin/alerts`).
public struct StoredAlert: Codable, Hashable, Sendable {
    public var deviceId: String
    public var alert: UploadedAlert
    public var receivedAt: String
    /// How many times it arrived; the server keeps (and would notify about) it once.
    public var receipts: Int

    init(_ stored: StoredCheckIn) {
        deviceId = stored.deviceId
        alert = stored.checkIn
        receivedAt = stored.receivedAt
        receipts = stored.receipts
    }
}

/// `GET /admin/stats`: what the server has seen since it started.
public struct ServerStats: Codable, Hashable, Sendable {
    /// Requests to the device API (`/v1/...`), faulted ones included.
    public var deviceRequests: Int = 0
    /// Batches stored (successful `POST /v1/check-ins`).
    public var checkInBatches: Int = 0
    public var largestBatch: Int = 0
    /// Items received in stored batches, duplicates included.
    public var checkInsReceived: Int = 0
    /// Faults injected so far.
    public var faultsInjected: Int = 0
    public var heartbeats: Int = 0
    /// Notification changes received in accepted requests, resends included.
    public var notificationChangesReceived: Int = 0
    /// Items received in stored `POST /v1/ping-responses` batches, duplicates included.
    public var pingResponsesReceived: Int = 0
    /// Alerts received (successful `POST /v1/alerts`), duplicates included.
    public var alertsReceived: Int = 0
    /// Check-ins refused by id in otherwise accepted batches (per-item rejection).
    public var checkInsRejected: Int = 0
    /// Device API requests by operation, e.g. `POST /v1/check-ins`, faulted ones included.
    public var requestsByOperation: [String: Int] = [:]
}

/// A fault to inject into the next `count` device API requests (`POST /admin/faults`), or into the
/// next `count` of one operation's requests: a device talks to the backend from several loops at
/// once (uploads, heartbeats, the ping poll, settings and notifications), so a fault meant for one
/// of them names it.
public struct Fault: Codable, Hashable, Sendable {
    public enum Kind: String, Codable, Hashable, Sendable, CaseIterable {
        /// Reply with `status` (default 503) and an error message; `retryAfterSeconds` adds `Retry-After`.
        case status
        /// Close the connection after reading the request, storing nothing.
        case drop
        /// Store the check-ins, then close the connection without replying (a lost acknowledgement).
        case dropAfterStore
        /// Reply 200 with a body that is not the API's JSON.
        case malformedReply
        /// Wait `delayMilliseconds`, then serve the request normally.
        case delay
        /// Reply `status` (default 502) with an HTML page, as a proxy or a web server in front
        /// of the API would.
        case htmlPage
    }

    public var kind: Kind
    public var count: Int
    public var status: Int?
    public var retryAfterSeconds: Int?
    public var delayMilliseconds: Int?
    /// Only requests whose `METHOD /path` starts with this (`POST /v1/check-ins`, `POST /ping/`)
    /// meet the fault; others pass it by. Nil: any request.
    public var operation: String?

    public init(_ kind: Kind, count: Int = 1, status: Int? = nil, retryAfterSeconds: Int? = nil, delayMilliseconds: Int? = nil,
                operation: String? = nil) {
        self.kind = kind
        self.count = count
        self.status = status
        self.retryAfterSeconds = retryAfterSeconds
        self.delayMilliseconds = delayMilliseconds
        self.operation = operation
    }

    /// Whether a request of `operation` (`METHOD /path`) meets this fault.
    func applies(to operation: String) -> Bool {
        self.operation.map { operation.hasPrefix($0) } ?? true
    }
}

/// `POST /admin/faults`: appends scheduled faults and/or changes the standing ones.
public struct FaultUpdate: Codable, Hashable, Sendable {
    /// Run in order, each for its `count` requests.
    public var schedule: [Fault]?
    /// Probability (0…1) that a request without a scheduled fault gets `errorStatus`.
    public var errorRate: Double?
    public var errorStatus: Int?
    /// Added to every device API request.
    public var latencyMilliseconds: Int?
    /// Forget every fault first.
    public var clear: Bool?
    /// Check-in ids to refuse by id (per-item rejection) in every batch that carries them, until cleared.
    public var rejectCheckInIDs: [String]?

    public init(schedule: [Fault]? = nil, errorRate: Double? = nil, errorStatus: Int? = nil,
                latencyMilliseconds: Int? = nil, clear: Bool? = nil, rejectCheckInIDs: [String]? = nil) {
        self.rejectCheckInIDs = rejectCheckInIDs
        self.schedule = schedule
        self.errorRate = errorRate
        self.errorStatus = errorStatus
        self.latencyMilliseconds = latencyMilliseconds
        self.clear = clear
    }
}

/// A ping as the dev server keeps it (`GET /admin/pings?device=ID`).
public struct StoredPing: Codable, Hashable, Sendable {
    public var ping: Ping
    /// When the first response to it arrived; nil while the user has not answered.
    public var answeredAt: String?
    /// When the watcher who sent it withdrew it (`DELETE /v1/dependents/{id}/ping`).
    public var withdrawnAt: String? = nil
}

/// A ping response as the dev server stored it (`GET /admin/ping-responses?device=ID`).
public struct StoredPingResponse: Codable, Hashable, Sendable {
    public var response: UploadedPingResponse
    public var receivedAt: String
    /// How many times it arrived; the server keeps it once whatever this says.
    public var receipts: Int
}
