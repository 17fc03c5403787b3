public import CheckInModels

/// An away period as the backend has it from the settings sync.
public struct AwaySpan: Hashable, Sendable {
    /// Nil: away from some time before `until` (the settings carried only the end).
    public var from: WallTime?
    public var until: WallTime

    public init(from: WallTime?, until: WallTime) {
        self.from = from
        self.until = until
    }
}

/// What the backend knows about a dependent's device, from which their status is derived.
public struct DependentFacts: Hashable, Sendable {
    /// Their latest check-in: its press time, or when the server received it when the device's
    /// clock was not synchronised.
    public var lastCheckIn: WallTime?
    /// Their latest help alert, timed the same way.
    public var lastAlert: WallTime?
    public var interval: Duration
    public var reminder: Duration
    public var away: AwaySpan?
    /// Their device's latest request to the device API (server time); nil: never heard from.
    public var lastHeard: WallTime?
    /// The asking watcher's ping waits for their press.
    public var pingPending: Bool
    /// Who said "I'm on it" since their last check-in.
    public var onIt: String?

    public init(lastCheckIn: WallTime?, lastAlert: WallTime? = nil, interval: Duration, reminder: Duration, away: AwaySpan? = nil,
                lastHeard: WallTime?, pingPending: Bool = false, onIt: String? = nil) {
        self.lastCheckIn = lastCheckIn
        self.lastAlert = lastAlert
        self.interval = interval
        self.reminder = reminder
        self.away = away
        self.lastHeard = lastHeard
        self.pingPending = pingPending
        self.onIt = onIt
    }
}

/// How the reference backend derives a dependent's status, loudest cause first:
/// 1. a help alert after their last check-in (or with none): `help_alert`;
/// 2. away now: `away`, nothing asked of them, no deadline;
/// 3. no check-in ever: `unknown`;
/// 4. past the deadline (last check-in, or the end of an away period after it, plus the
///    interval): `overdue`;
/// 5. no request from their device within the silence allowance: `silent`;
/// 6. within the reminder before the deadline: `reminder`;
/// 7. otherwise `checked_in`.
public enum DependentStatusRule {
    /// Twice the device's default heartbeat (15 minutes, `[uplink] heartbeat`): one lost heartbeat
    /// never makes anyone silent. Every request counts, so a device with a ping poll is heard
    /// from every few minutes.
    public static let defaultSilenceAllowance: Duration = .seconds(1800)

    public static func judge(_ facts: DependentFacts, now: WallTime, silenceAllowance: Duration = defaultSilenceAllowance)
        -> (status: DependentStatus, deadline: WallTime?) {
        var deadline: WallTime?
        if let lastCheckIn = facts.lastCheckIn {
            // Away mode's end starts a fresh countdown, as on the device.
            let since = facts.away.map { $0.until <= now ? max($0.until, lastCheckIn) : lastCheckIn } ?? lastCheckIn
            deadline = since + facts.interval
        }
        if let alert = facts.lastAlert, facts.lastCheckIn.map({ alert > $0 }) ?? true {
            return (.helpAlert, deadline)
        }
        if let away = facts.away, away.from.map({ $0 <= now }) ?? true, now < away.until {
            return (.away, nil)
        }
        guard let deadline else { return (.unknown, nil) }
        if now >= deadline { return (.overdue, deadline) }
        if facts.lastHeard.map({ now - $0 > silenceAllowance }) ?? true { return (.silent, deadline) }
        if now >= deadline + (.zero - facts.reminder) { return (.reminder, deadline) }
        return (.checkedIn, deadline)
    }
}
