public import CheckInModels

/// `GET /v1/pings`: pings the user has not answered yet, created after the request's `after` cursor.
public struct PingList: Codable, Hashable, Sendable {
    public var pings: [Ping]
    /// Give it as `after` next time; pings up to it are not sent again.
    public var cursor: String

    public init(pings: [Ping], cursor: String) {
        self.pings = pings
        self.cursor = cursor
    }
}

/// A responder's ping on the wire.
public struct Ping: Codable, Hashable, Sendable {
    public var id: String
    public var responderId: String
    public var responderName: String
    /// RFC 3339 UTC.
    public var createdAt: String

    public init(id: String, responderId: String, responderName: String, createdAt: String) {
        self.id = id
        self.responderId = responderId
        self.responderName = responderName
        self.createdAt = createdAt
    }

    public var pending: PendingPing {
        PendingPing(id: id, responderID: responderId, responderName: responderName, createdAt: createdAt)
    }
}

/// `POST /v1/ping-responses`: the user's answers, oldest first; acknowledged by id
/// (`CheckInAcknowledgement`), stored once however often they are sent.
public struct PingResponseBatch: Codable, Hashable, Sendable {
    public var responses: [UploadedPingResponse]

    public init(responses: [UploadedPingResponse]) {
        self.responses = responses
    }
}

public struct UploadedPingResponse: Codable, Hashable, Sendable {
    /// UUID v4, lowercase: the idempotency key.
    public var id: String
    public var pingId: String
    /// The check-in whose press answered the ping.
    public var checkInId: String
    /// Wall-clock time of that press, RFC 3339 UTC with microseconds.
    public var wallTime: String

    public init(id: String, pingId: String, checkInId: String, wallTime: String) {
        self.id = id
        self.pingId = pingId
        self.checkInId = checkInId
        self.wallTime = wallTime
    }

    public init(_ response: PingResponse) {
        self.init(id: response.id.description, pingId: response.pingID, checkInId: response.checkInID.description,
                  wallTime: response.at.rfc3339Microseconds)
    }
}

/// `POST /admin/pings?device=ID` on the reference server: a responder pings the device.
public struct NewPing: Codable, Hashable, Sendable {
    public var responderName: String
    /// Defaults to a name-derived id when absent.
    public var responderId: String?

    public init(responderName: String, responderId: String? = nil) {
        self.responderName = responderName
        self.responderId = responderId
    }
}

extension DeviceAPIPath {
    public static let pings = "/v1/pings"
    public static let pingResponses = "/v1/ping-responses"
    /// The longest `wait` of `GET /v1/pings`, in seconds.
    public static let longestPingWait = 300
}
