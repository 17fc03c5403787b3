/// `GET /v1/settings` and `PUT /v1/settings`: the check-in interval and reminder with a version.
///
/// Versions only grow. A `PUT` whose version is not newer than the server's is refused with 409
/// and the server's settings, which the device then applies: the newer side wins.
public struct DeviceSettings: Codable, Hashable, Sendable {
    public var intervalSeconds: Int64
    public var reminderSeconds: Int64
    public var version: Int64
    /// Away mode (RFC 3339, UTC): absent or null when the device is not away. Part of the
    /// settings, so the newer version decides it like the interval.
    public var awayFrom: String?
    public var awayUntil: String?

    public init(intervalSeconds: Int64, reminderSeconds: Int64, version: Int64, awayFrom: String? = nil, awayUntil: String? = nil) {
        self.intervalSeconds = intervalSeconds
        self.reminderSeconds = reminderSeconds
        self.version = version
        self.awayFrom = awayFrom
        self.awayUntil = awayUntil
    }
}

/// `POST /v1/heartbeat`: the device is alive, and how far behind its upload queue is.
public struct Heartbeat: Codable, Hashable, Sendable {
    public var bootId: String
    public var uptimeSeconds: Int64
    public var queueDepth: Int
    public var softwareVersion: String?

    public init(bootId: String, uptimeSeconds: Int64, queueDepth: Int, softwareVersion: String? = nil) {
        self.bootId = bootId
        self.uptimeSeconds = uptimeSeconds
        self.queueDepth = queueDepth
        self.softwareVersion = softwareVersion
    }
}

/// The paths of the device API, relative to the configured base URL.
public enum DeviceAPIPath {
    public static let checkIns = "/v1/check-ins"
    public static let heartbeat = "/v1/heartbeat"
    public static let settings = "/v1/settings"
}
