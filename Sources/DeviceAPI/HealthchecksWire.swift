/// The part of healthchecks' management API v3 the device uses (docs/healthchecks.md), as JSON:
/// checks found by slug, created, updated and paused; a check's recent pings; the project's
/// integrations (who is told).

/// A check as the API returns it (read-write key). Fields the device does not use are left out.
public struct HealthchecksCheck: Codable, Hashable, Sendable {
    public var name: String
    public var slug: String
    public var desc: String?
    /// Seconds.
    public var timeout: Int64?
    public var grace: Int64
    /// new, up, grace, down, paused (started checks add nothing the device needs).
    public var status: String
    public var nPings: Int?
    public var lastPing: String?
    /// When the next ping is expected (the last ping plus the timeout); null for a new or paused check.
    public var nextPing: String?
    /// Absent with a read-only key.
    public var uuid: String?
    public var pingURL: String?
    public var updateURL: String?
    public var pauseURL: String?
    /// Cron checks: the expression and its zone (then `timeout` is absent).
    public var schedule: String?
    public var tz: String?
    /// The ids of the integrations the check notifies, comma-separated (`""`: none). Absent with a
    /// read-only key, as the uuid is.
    public var channels: String?

    public init(name: String, slug: String, desc: String?, timeout: Int64?, grace: Int64, status: String, nPings: Int?,
                lastPing: String?, uuid: String?, pingURL: String?, updateURL: String?, pauseURL: String?,
                schedule: String? = nil, tz: String? = nil, nextPing: String? = nil, channels: String? = nil) {
        self.channels = channels
        self.nextPing = nextPing
        self.schedule = schedule
        self.tz = tz
        self.name = name
        self.slug = slug
        self.desc = desc
        self.timeout = timeout
        self.grace = grace
        self.status = status
        self.nPings = nPings
        self.lastPing = lastPing
        self.uuid = uuid
        self.pingURL = pingURL
        self.updateURL = updateURL
        self.pauseURL = pauseURL
    }

    enum CodingKeys: String, CodingKey {
        case name, slug, desc, timeout, grace, status, uuid, schedule, tz, channels
        case nPings = "n_pings"
        case lastPing = "last_ping"
        case nextPing = "next_ping"
        case pingURL = "ping_url"
        case updateURL = "update_url"
        case pauseURL = "pause_url"
    }
}

/// `GET /api/v3/checks/?slug=…`.
public struct HealthchecksCheckList: Codable, Hashable, Sendable {
    public var checks: [HealthchecksCheck]
    public init(checks: [HealthchecksCheck]) { self.checks = checks }
}

/// `POST /api/v3/checks/` (create) and `POST /api/v3/checks/<uuid>` (update): absent fields are
/// left as they are.
public struct HealthchecksCheckUpdate: Codable, Hashable, Sendable {
    public var name: String?
    public var slug: String?
    public var desc: String?
    public var tags: String?
    public var timeout: Int64?
    public var grace: Int64?
    /// `"*"`: every integration of the project (the phone the family set up).
    public var channels: String?
    /// A cron check's expression and zone (instead of `timeout`).
    public var schedule: String?
    public var tz: String?

    public init(name: String? = nil, slug: String? = nil, desc: String? = nil, tags: String? = nil, timeout: Int64? = nil,
                grace: Int64? = nil, channels: String? = nil, schedule: String? = nil, tz: String? = nil) {
        self.schedule = schedule
        self.tz = tz
        self.name = name
        self.slug = slug
        self.desc = desc
        self.tags = tags
        self.timeout = timeout
        self.grace = grace
        self.channels = channels
    }
}

/// One ping in `GET /api/v3/checks/<uuid>/pings/` (most recent first).
public struct HealthchecksPing: Codable, Hashable, Sendable {
    /// success, fail, start, log, ign.
    public var type: String
    public var date: String
    public var n: Int
    public var method: String?
    public var ua: String?
    /// The run id the ping carried (`?rid=`): the device puts a help alert's id there.
    public var rid: String?

    public init(type: String, date: String, n: Int, method: String?, ua: String?, rid: String?) {
        self.type = type
        self.date = date
        self.n = n
        self.method = method
        self.ua = ua
        self.rid = rid
    }
}

public struct HealthchecksPingList: Codable, Hashable, Sendable {
    public var pings: [HealthchecksPing]
    public init(pings: [HealthchecksPing]) { self.pings = pings }
}

/// One integration of the project in `GET /api/v3/channels/` (read-write key only): where
/// healthchecks sends a check's notifications. The API gives no address, number or URL.
public struct HealthchecksChannel: Codable, Hashable, Sendable {
    /// A UUID: what a check's `channels` lists.
    public var id: String
    /// The name the family gave it; often empty.
    public var name: String
    /// `email`, `sms`, `whatsapp`, `signal`, `telegram`, `webhook`, `slack`, ...
    public var kind: String

    public init(id: String, name: String, kind: String) {
        self.id = id
        self.name = name
        self.kind = kind
    }
}

public struct HealthchecksChannelList: Codable, Hashable, Sendable {
    public var channels: [HealthchecksChannel]
    public init(channels: [HealthchecksChannel]) { self.channels = channels }
}

public enum HealthchecksPath {
    /// Under the site's root.
    public static let checks = "/api/v3/checks/"
    /// The project's integrations.
    public static let channels = "/api/v3/channels/"
}
