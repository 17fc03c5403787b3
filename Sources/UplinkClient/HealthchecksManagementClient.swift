import CheckInModels

/// One of the device's checks on a healthchecks instance.
public enum CheckRole: String, Hashable, Sendable, CaseIterable {
    /// Pinged at every check-in: down means the person has not checked in.
    case checkIn = "check-in"
    /// Pinged every heartbeat period: down means the device is offline.
    case heartbeat
    /// Gets a `fail` signal for every help alert.
    case alert
}

/// A check as the device wants it: found (or created) by its slug, with this timeout and grace.
public struct CheckSpec: Hashable, Sendable {
    public var role: CheckRole
    public var slug: String
    public var name: String
    /// healthchecks' "period": a ping starts it; when it runs out the check is late.
    public var timeout: Duration
    /// healthchecks' "grace": after the timeout, how long until the check is down and notifies.
    public var grace: Duration
    public var description: String
    /// A cron check instead (daily windows): its expression and IANA zone; `timeout` is then unused.
    public var cron: CronSchedule?
    /// Away mode: the check is paused (and resumed with a success ping, which starts a fresh
    /// period as the device's countdown does).
    public var paused: Bool

    public init(role: CheckRole, slug: String, name: String, timeout: Duration, grace: Duration, description: String,
                cron: CronSchedule? = nil, paused: Bool = false) {
        self.role = role
        self.slug = slug
        self.name = name
        self.timeout = timeout
        self.grace = grace
        self.description = description
        self.cron = cron
        self.paused = paused
    }
}

/// A healthchecks cron check's schedule: `0 7 * * *` in `Europe/London`.
public struct CronSchedule: Hashable, Sendable {
    public var expression: String
    public var timeZone: String

    public init(expression: String, timeZone: String) {
        self.expression = expression
        self.timeZone = timeZone
    }
}

/// A check as the instance has it after a sync.
public struct ManagedCheck: Hashable, Sendable {
    public var role: CheckRole
    public var slug: String
    /// healthchecks' status: new, up, grace, down, paused.
    public var status: String
    public var timeout: Duration
    public var grace: Duration
    /// What this sync did to it.
    public var change: Change

    public enum Change: String, Hashable, Sendable {
        case created
        case updated
        case unchanged
    }

    public init(role: CheckRole, slug: String, status: String, timeout: Duration, grace: Duration, change: Change) {
        self.role = role
        self.slug = slug
        self.status = status
        self.timeout = timeout
        self.grace = grace
        self.change = change
    }
}

/// The management API of a healthchecks instance, as far as the device uses it (docs/healthchecks.md):
/// with a read-write API key it finds its checks by slug, creates the missing ones and keeps their
/// timeout and grace as asked. Like `UplinkClient`, every call ends with a result and never throws.
public struct HealthchecksManagementClient: Sendable {
    /// Finds each check by its slug, creates the missing ones (with every integration of the
    /// project), and sets timeout and grace where they differ. Returns the checks as they now are.
    public var sync: @Sendable ([CheckSpec]) async -> Result<[ManagedCheck], UplinkFailure>
    /// The instance, for status and logs (never the key).
    public var endpoint: String

    public init(endpoint: String, sync: @escaping @Sendable ([CheckSpec]) async -> Result<[ManagedCheck], UplinkFailure>) {
        self.endpoint = endpoint
        self.sync = sync
    }

    /// Every call is reported as unexpected (and fails permanently): tests override what they use.
    public static func failing(endpoint: String = "test healthchecks") -> HealthchecksManagementClient {
        HealthchecksManagementClient(endpoint: endpoint, sync: { _ in .failure(.unexpected("HealthchecksManagementClient.sync")) })
    }
}
