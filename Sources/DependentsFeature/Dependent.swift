public import CheckInModels

/// One person a watcher looks after, as the watcher knows them now.
public struct Dependent: Equatable, Sendable, Identifiable {
    public var entry: DependentEntry
    public var id: String { entry.name }
    /// What the watcher shows: the source's word, or `silent` / `unknown` when it has none to trust.
    public var status: DependentStatus = .unknown
    /// The latest word from the source.
    public var report: DependentReport?
    /// When that word arrived (the watcher's clock).
    public var heardAt: WallTime?
    /// MQTT: the device's availability (`online` / `offline`); nil before the first.
    public var online: Bool?
    /// MQTT: since when it has been `offline` (monotonic); silent after the heartbeat allowance.
    public var offlineSince: Duration?
    /// This watcher's ping waits for their answer: sent then (the watcher's wall clock).
    public var pingSentAt: WallTime?
    /// Their device has shown the ping as pending since it was sent.
    public var pingSeenPending = false
    /// When their press answered this watcher's ping.
    public var pingAnsweredAt: WallTime?
    /// This watcher said "I'm on it" while they needed someone.
    public var onItSent = false
    /// Their device removed this watcher from its responders (MQTT): its pings are refused there.
    public var removedByThem = false
    /// Why the status may not be what it seems: a state that could not be read, a source that failed.
    public var problem: String?

    public init(entry: DependentEntry) {
        self.entry = entry
    }
}

extension Dependent {
    /// A ping or "I'm on it" can reach them: their source carries one, and their device has not
    /// removed this watcher.
    public var canBeAsked: Bool { entry.source.canPing && !removedByThem }

    /// What is wrong, the removal by their device first (it outlasts any state heard).
    public var shownProblem: String? {
        guard removedByThem else { return problem }
        return "their device removed this watcher from its responders: pings and \"I'm on it\" are refused there until "
            + "someone runs `lifesignalctl responders allow` on it"
    }

    /// The MQTT topics their device publishes on, the ones a watcher subscribes to.
    public var subscriptions: [String] {
        guard case let .mqtt(base) = entry.source else { return [] }
        return [base + "/availability", base + "/state"]
    }
}
