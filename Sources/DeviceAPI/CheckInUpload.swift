public import CheckInModels

/// `POST /v1/check-ins`: a batch of check-ins, oldest first (docs/device-api.yaml, `CheckInBatch`).
public struct CheckInBatch: Codable, Hashable, Sendable {
    public var checkIns: [UploadedCheckIn]

    public init(checkIns: [UploadedCheckIn]) {
        self.checkIns = checkIns
    }
}

/// One check-in on the wire. `id` is the idempotency key: sending it twice stores it once.
public struct UploadedCheckIn: Codable, Hashable, Sendable {
    /// UUID (RFC 9562 version 4), lowercase 8-4-4-4-12.
    public var id: String
    /// Wall-clock time of the press, RFC 3339 UTC with microseconds.
    public var wallTime: String
    /// Whether the device's wall clock was synchronised (NTP) at the press; when false, `wallTime`
    /// may be far off and only `bootId` + `uptimeMicroseconds` order the check-ins of one boot.
    public var wallClockSynchronized: Bool
    /// Monotonic time since boot (CLOCK_BOOTTIME) at the press, in microseconds.
    public var uptimeMicroseconds: Int64
    /// The kernel's boot id: uptimes are comparable only within one boot.
    public var bootId: String
    /// `button` or `cli`.
    public var source: String

    public init(id: String, wallTime: String, wallClockSynchronized: Bool, uptimeMicroseconds: Int64,
                bootId: String, source: String) {
        self.id = id
        self.wallTime = wallTime
        self.wallClockSynchronized = wallClockSynchronized
        self.uptimeMicroseconds = uptimeMicroseconds
        self.bootId = bootId
        self.source = source
    }

    public init(_ record: CheckInRecord) {
        self.init(id: record.id.description, wallTime: record.at.wall.rfc3339Microseconds,
                  wallClockSynchronized: record.at.wallClockSynchronized,
                  uptimeMicroseconds: record.at.uptime.wholeMicroseconds, bootId: record.at.bootID,
                  source: record.source.rawValue)
    }
}

/// The reply to `POST /v1/check-ins`: the ids the server has stored (newly or before), and the
/// ids it refused for good (per-item rejection), each with its reason.
public struct CheckInAcknowledgement: Codable, Hashable, Sendable {
    public var acknowledged: [String]
    /// Absent or empty when nothing was refused.
    public var rejected: [RejectedCheckIn]?

    public init(acknowledged: [String], rejected: [RejectedCheckIn]? = nil) {
        self.acknowledged = acknowledged
        self.rejected = rejected
    }
}

/// One check-in of a batch the server will never store, and why (for the device's operator).
public struct RejectedCheckIn: Codable, Hashable, Sendable {
    public var id: String
    public var error: String

    public init(id: String, error: String) {
        self.id = id
        self.error = error
    }
}

/// The body of every error reply: a message meant for the device's operator.
public struct ErrorReply: Codable, Hashable, Sendable {
    public var error: String

    public init(error: String) {
        self.error = error
    }
}

extension WallTime {
    /// `2026-11-22T21:55:19.042137Z`: like `iso8601`, but keeping every stored microsecond.
    public var rfc3339Microseconds: String { rfc3339(fractionDigits: 6) }
}
