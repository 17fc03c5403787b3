/// A responder's ping waiting for the user's answer (the app's `PingFeature`): someone who watches
/// over the user asks "are you OK?". The next press that checks in answers every pending ping.
public struct PendingPing: Hashable, Sendable, Identifiable, Codable {
    /// The backend's id for the ping (a UUID on the LifeSignal backend; kept as text as received).
    public var id: String
    public var responderID: String
    /// Who asked, for `lifesignalctl status` and `pings`.
    public var responderName: String
    /// When the responder sent it, RFC 3339 as the backend wrote it.
    public var createdAt: String

    public init(id: String, responderID: String, responderName: String, createdAt: String) {
        self.id = id
        self.responderID = responderID
        self.responderName = responderName
        self.createdAt = createdAt
    }

    /// Ids of pings raised on the device itself (Home Assistant's "ask if OK"), never the
    /// backend's (whose ids are UUIDs).
    public static let localIDPrefix = "local-"

    /// Raised on the device: its answer has no backend to reach.
    public var isLocal: Bool { id.hasPrefix(Self.localIDPrefix) }
}

/// The user's answer to one ping, stored in the same transaction as the check-in that gave it and
/// uploaded like a check-in (`id` is the idempotency key).
public struct PingResponse: Hashable, Sendable, Identifiable {
    public var id: CheckInID
    public var pingID: String
    /// The check-in whose press answered the ping.
    public var checkInID: CheckInID
    /// Wall-clock time of that press.
    public var at: WallTime

    public init(id: CheckInID, pingID: String, checkInID: CheckInID, at: WallTime) {
        self.id = id
        self.pingID = pingID
        self.checkInID = checkInID
        self.at = at
    }

    /// The answer to a ping raised on the device itself (`PendingPing.isLocal`).
    public var isLocal: Bool { pingID.hasPrefix(PendingPing.localIDPrefix) }
}

/// One answer to `GET /v1/pings`: the pings pending after `cursor` and the cursor to ask from next.
public struct PingPoll: Hashable, Sendable {
    public var pings: [PendingPing]
    public var cursor: String

    public init(pings: [PendingPing], cursor: String) {
        self.pings = pings
        self.cursor = cursor
    }
}
