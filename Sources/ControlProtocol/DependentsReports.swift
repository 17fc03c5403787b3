/// A watcher's dependents: `lifesignalctl dependents` and each of its subcommands answer with it.
public struct DependentsReport: Codable, Hashable, Sendable {
    /// person, watcher, both.
    public var role: String
    /// How this watcher signs its pings and "I'm on it".
    public var watcher: String
    /// status, name, deadline.
    public var sort: String
    /// The loudest status across the dependents (what the LEDs' glance shows); nil with none.
    public var loudest: String?
    /// The list in the chosen order.
    public var dependents: [DependentItemReport]
    /// A press will ping everyone when the confirmation window ends.
    public var confirmingPingAll: Bool
    /// What the last request did ("pinged Mum").
    public var outcome: String?
    /// What failed, until `dismiss-error`.
    public var error: String?
    /// Polled sources that cannot be asked, with why.
    public var sourceProblems: [String]

    public init(role: String, watcher: String, sort: String, loudest: String?, dependents: [DependentItemReport],
                confirmingPingAll: Bool, outcome: String?, error: String?, sourceProblems: [String]) {
        self.role = role
        self.watcher = watcher
        self.sort = sort
        self.loudest = loudest
        self.dependents = dependents
        self.confirmingPingAll = confirmingPingAll
        self.outcome = outcome
        self.error = error
        self.sourceProblems = sourceProblems
    }
}

/// One dependent as the watcher knows them.
public struct DependentItemReport: Codable, Hashable, Sendable {
    public var name: String
    /// help_alert, overdue, silent, reminder, unknown, away, checked_in.
    public var status: String
    /// mqtt, backend, healthchecks.
    public var source: String
    /// Their base topic, backend id or check.
    public var address: String
    /// In the config file (not removable from the CLI).
    public var fromConfig: Bool
    public var heartbeatSeconds: Int64
    /// ISO 8601 UTC; nil when not known.
    public var lastCheckIn: String?
    public var deadline: String?
    /// When the watcher last heard of them.
    public var heardAt: String?
    /// MQTT: their device's availability (true online); nil before the first word.
    public var online: Bool?
    /// Their device shows a ping as pending.
    public var pingPending: Bool
    /// This watcher's ping waits for their answer: sent then.
    public var pingSentAt: String?
    /// When their press answered this watcher's ping.
    public var pingAnsweredAt: String?
    /// Who said "I'm on it" (as their device shows it).
    public var onIt: String?
    /// This watcher said "I'm on it".
    public var onItSent: Bool
    /// Why the status may not be what it seems.
    public var problem: String?

    public init(name: String, status: String, source: String, address: String, fromConfig: Bool, heartbeatSeconds: Int64,
                lastCheckIn: String?, deadline: String?, heardAt: String?, online: Bool?, pingPending: Bool, pingSentAt: String?,
                pingAnsweredAt: String?, onIt: String?, onItSent: Bool, problem: String?) {
        self.name = name
        self.status = status
        self.source = source
        self.address = address
        self.fromConfig = fromConfig
        self.heartbeatSeconds = heartbeatSeconds
        self.lastCheckIn = lastCheckIn
        self.deadline = deadline
        self.heardAt = heardAt
        self.online = online
        self.pingPending = pingPending
        self.pingSentAt = pingSentAt
        self.pingAnsweredAt = pingAnsweredAt
        self.onIt = onIt
        self.onItSent = onItSent
        self.problem = problem
    }
}
