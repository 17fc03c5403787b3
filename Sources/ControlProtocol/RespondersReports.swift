/// The person's responders: `lifesignalctl responders` and each of its subcommands answer with it.
public struct RespondersReport: Codable, Hashable, Sendable {
    public var responders: [ResponderItemReport]
    /// Watchers removed here: their pings and "I'm on it" are refused.
    public var removed: [RemovedWatcherReport]
    /// Who is told of a missed check-in and of a help alert, or that nobody is: one line.
    public var reach: String
    /// Nobody at all is told of a missed check-in.
    public var nobodyForMissedCheckIns: Bool
    /// Help alerts are on and nobody at all is told of one.
    public var nobodyForHelpAlerts: Bool
    /// Polled sources whose list cannot be read now, with why (their last list is shown).
    public var sourceProblems: [String]
    /// What the last change was ("Anna confirmed: ...").
    public var message: String?
    /// What failed, until `dismiss-error`.
    public var error: String?
    /// A refresh did not hear from every source in time: the list may be older than the request.
    public var stale: Bool

    public init(responders: [ResponderItemReport], removed: [RemovedWatcherReport], reach: String, nobodyForMissedCheckIns: Bool,
                nobodyForHelpAlerts: Bool, sourceProblems: [String], message: String?, error: String?, stale: Bool = false) {
        self.responders = responders
        self.removed = removed
        self.reach = reach
        self.nobodyForMissedCheckIns = nobodyForMissedCheckIns
        self.nobodyForHelpAlerts = nobodyForHelpAlerts
        self.sourceProblems = sourceProblems
        self.message = message
        self.error = error
        self.stale = stale
    }
}

/// One responder: who, what they are, and the path that reaches them.
public struct ResponderItemReport: Codable, Hashable, Sendable {
    public var name: String
    /// watcher device, backend contact, healthchecks integration.
    public var role: String
    /// mqtt, backend, healthchecks.
    public var source: String
    /// The source's id for them (a watcher's MQTT id, the backend's id, the integration's UUID).
    public var id: String
    /// watcher, contact, or an integration's kind (email, sms, ...).
    public var kind: String
    /// How the source reaches them (app, sms, email): kinds, never an address.
    public var channels: [String]
    /// missed_check_in, help_alert.
    public var told: [String]
    /// The path in words ("watcher device, over MQTT").
    public var path: String
    /// When a watcher confirmed (RFC 3339).
    public var since: String?
    /// Why they cannot be told right now ("the MQTT broker is not connected"); nil when they can.
    public var notReachableNow: String? = nil

    public init(name: String, role: String, source: String, id: String, kind: String, channels: [String], told: [String],
                path: String, since: String?) {
        self.name = name
        self.role = role
        self.source = source
        self.id = id
        self.kind = kind
        self.channels = channels
        self.told = told
        self.path = path
        self.since = since
    }
}

public struct RemovedWatcherReport: Codable, Hashable, Sendable {
    public var name: String
    public var id: String
    public var removedAt: String

    public init(name: String, id: String, removedAt: String) {
        self.name = name
        self.id = id
        self.removedAt = removedAt
    }
}
