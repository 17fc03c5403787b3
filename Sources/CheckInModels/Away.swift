/// Away mode as the device and the backend agree on it (part of the synced settings): from when,
/// until when, on the wall clock.
public struct AwayPlan: Hashable, Sendable {
    public var since: WallTime
    public var until: WallTime

    public init(since: WallTime, until: WallTime) {
        self.since = since
        self.until = until
    }
}

/// One away period as the device stored it: when it began on every clock (so a restart or a power
/// cut keeps it, and its end is measured like a countdown, docs/time.md), how long it lasts, and
/// how and when it ended.
public struct AwayPeriod: Hashable, Sendable {
    public var id: CheckInID
    public var start: DeviceInstant
    /// How long it lasts from `start`; it ends by itself then.
    public var duration: Duration
    public var source: AwaySource
    public var ended: Ending?

    public struct Ending: Hashable, Sendable {
        public var at: DeviceInstant
        public var reason: AwayEndReason

        public init(at: DeviceInstant, reason: AwayEndReason) {
            self.at = at
            self.reason = reason
        }
    }

    public init(id: CheckInID, start: DeviceInstant, duration: Duration, source: AwaySource, ended: Ending? = nil) {
        self.id = id
        self.start = start
        self.duration = duration
        self.source = source
        self.ended = ended
    }

    /// When it ends (or ended) by itself, on the wall clock, for people and the backend.
    public var until: WallTime { start.wall + duration }

    public var plan: AwayPlan { AwayPlan(since: start.wall, until: until) }
}

/// Who set away mode.
public enum AwaySource: String, Hashable, Sendable, CaseIterable {
    /// `lifesignalctl away`.
    case cli
    /// The backend's settings (the family's app).
    case backend
    /// `<base>/cmd/away` on the MQTT broker (`[mqtt] remote_away`).
    case mqtt
}

/// Why an away period ended.
public enum AwayEndReason: String, Hashable, Sendable, CaseIterable {
    /// Its time was up.
    case expired
    /// `lifesignalctl away end`.
    case cli
    /// A press ended it (and checked in).
    case press
    /// The backend's settings no longer have it.
    case backend
    /// `<base>/cmd/away_end` on the MQTT broker.
    case mqtt
    /// A new away period took its place.
    case replaced
}

/// The longest away period the device accepts: a forgotten `away --until` must not silence the
/// device for ever.
public let longestAway = Duration.seconds(90 * 86_400)
