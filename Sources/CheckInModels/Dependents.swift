/// How one of the people a watcher looks after is doing, as the watcher shows it (the app's
/// `DependentsFeature`). Ordered by how loudly the watcher's LEDs say it: `urgency`.
public enum DependentStatus: String, Hashable, Sendable, CaseIterable, Codable {
    /// They asked for help (a long press on their device).
    case helpAlert = "help_alert"
    /// Their deadline passed without a check-in.
    case overdue
    /// Nothing heard for longer than their device's heartbeat allows: it is off, or cut off.
    case silent
    /// Their deadline is near (or passed, within their device's grace).
    case reminder
    /// Not heard of yet since the watcher started.
    case unknown
    /// Away mode: nothing is asked of them.
    case away
    /// Checked in.
    case checkedIn = "checked_in"

    /// Higher is louder: the glance shows the loudest status across the dependents.
    public var urgency: Int {
        switch self {
        case .helpAlert: 6
        case .overdue: 5
        case .silent: 4
        case .reminder: 3
        case .unknown: 2
        case .away: 1
        case .checkedIn: 0
        }
    }

    /// Someone should go and look: the watcher's press sends "I'm on it" instead of pinging.
    public var needsSomeone: Bool { self == .helpAlert || self == .overdue }
}

/// Where a dependent's status comes from, and how a ping reaches them.
public enum DependentSource: Hashable, Sendable {
    /// Their device on the watcher's MQTT broker, under this base topic (`lifesignal/<id>`).
    case mqtt(baseTopic: String)
    /// The LifeSignal backend's dependent with this id (`GET /v1/dependents`).
    case backend(id: String)
    /// A healthchecks check, by its slug or UUID, read with a read-only key (no pings).
    case healthchecks(check: String)

    public var kind: String {
        switch self {
        case .mqtt: "mqtt"
        case .backend: "backend"
        case .healthchecks: "healthchecks"
        }
    }

    /// The topic, id or check: what identifies them within the source.
    public var address: String {
        switch self {
        case let .mqtt(baseTopic): baseTopic
        case let .backend(id): id
        case let .healthchecks(check): check
        }
    }

    public init?(kind: String, address: String) {
        switch kind {
        case "mqtt": self = .mqtt(baseTopic: address)
        case "backend": self = .backend(id: address)
        case "healthchecks": self = .healthchecks(check: address)
        default: return nil
        }
    }

    /// healthchecks cannot carry a ping or "I'm on it".
    public var canPing: Bool {
        if case .healthchecks = self { return false }
        return true
    }
}

/// A dependent as the watcher keeps it: added by a pairing code or from the config.
public struct DependentEntry: Hashable, Sendable {
    /// How the watcher names them ("Mum"); unique on the watcher.
    public var name: String
    public var source: DependentSource
    /// How long without word from their device before they count as `silent`.
    public var heartbeat: Duration
    /// From `[dependents.<key>]` in the config (cannot be removed from the CLI) or added by a code.
    public var fromConfig: Bool
    /// A light of their own (`[dependents.<key>] led`, an LED of `[leds] order`), config only.
    public var led: String?

    public init(name: String, source: DependentSource, heartbeat: Duration, fromConfig: Bool = false, led: String? = nil) {
        self.name = name
        self.source = source
        self.heartbeat = heartbeat
        self.fromConfig = fromConfig
        self.led = led
    }

    /// Without a heartbeat in the code or the config: 3 minutes (twice the MQTT keep-alive's
    /// allowance of 90 s, so one missed keep-alive never makes anyone silent).
    public static let defaultHeartbeat: Duration = .seconds(180)
}

/// What a source says about one dependent at one moment.
public struct DependentReport: Hashable, Sendable {
    public var status: DependentStatus
    public var lastCheckIn: WallTime?
    public var deadline: WallTime?
    /// A ping from a watcher waits for their press.
    public var pingPending: Bool
    /// Who said "I'm on it" since they were last OK.
    public var onIt: String?

    public init(status: DependentStatus, lastCheckIn: WallTime? = nil, deadline: WallTime? = nil, pingPending: Bool = false,
                onIt: String? = nil) {
        self.status = status
        self.lastCheckIn = lastCheckIn
        self.deadline = deadline
        self.pingPending = pingPending
        self.onIt = onIt
    }
}

/// How `lifesignalctl dependents` orders the list (the app's sort option), kept in the store.
public enum DependentsSortOption: String, Hashable, Sendable, CaseIterable, Codable {
    /// Loudest first (help alert, overdue, silent, reminder, …), then by name.
    case status
    case name
    /// Nearest deadline first; those without one last.
    case deadline
}

/// What a watcher is: the device's `[device] role`.
public enum DeviceRole: String, Hashable, Sendable, CaseIterable, Codable {
    /// The person who checks in: the countdown, as the device has always been.
    case person
    /// Looks after others: no countdown of its own; the LEDs show the dependents.
    case watcher
    /// Both: the person's countdown, and the glance at the dependents.
    case both

    public var hasCountdown: Bool { self != .watcher }
    public var watches: Bool { self != .person }
}
