/// Someone who is told when the person behind this device needs someone (the app's
/// `RespondersFeature`), as one of the device's sources names them.
public struct SourcedResponder: Hashable, Sendable {
    /// The source's own id: the backend's responder id, the healthchecks integration's UUID, the
    /// watcher device's MQTT id.
    public var id: String
    public var name: String
    /// What they are within the source: `watcher` (a LifeSignal device that follows this one),
    /// `contact` (a person in the LifeSignal app), or a healthchecks integration's kind (`email`,
    /// `sms`, `slack`, ...).
    public var kind: String
    /// How the source reaches them (`app`, `sms`, `email`, ...): kinds only, never an address,
    /// number, token or webhook URL.
    public var channels: [String]
    /// What they are told of.
    public var told: Set<ResponderTopic>

    public init(id: String, name: String, kind: String, channels: [String] = [], told: Set<ResponderTopic>) {
        self.id = id
        self.name = name
        self.kind = kind
        self.channels = channels
        self.told = told
    }
}

/// What a responder can be told of.
public enum ResponderTopic: String, Hashable, Sendable, CaseIterable, Comparable {
    /// The person's deadline passed without a check-in.
    case missedCheckIn = "missed_check_in"
    /// The person asked for help (a long press).
    case helpAlert = "help_alert"

    public static func < (lhs: ResponderTopic, rhs: ResponderTopic) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A watcher device the person removed from their responders (`lifesignalctl responders remove`):
/// its pings and "I'm on it" are refused until the person allows it again. Kept in the store, so
/// a restart does not let it back in.
public struct RemovedWatcher: Hashable, Sendable {
    /// The watcher's MQTT device id, as its registration and commands carry it.
    public var id: String
    /// The name it had when it was removed.
    public var name: String
    public var removedAt: WallTime

    public init(id: String, name: String, removedAt: WallTime) {
        self.id = id
        self.name = name
        self.removedAt = removedAt
    }
}
