public import CheckInModels

/// Where the person stands with their check-in deadline.
public enum Phase: Hashable, Sendable {
    /// Settings or history are still loading from the store.
    case starting
    /// No check-in has ever been stored on this device.
    case neverCheckedIn
    /// Checked in; the reminder has not started yet.
    case checkedIn(Countdown)
    /// deadline − reminder ≤ now < deadline.
    case reminder(Countdown)
    /// deadline ≤ now < deadline + grace: the last-chance warning (urgent LEDs, a beep every 30 s);
    /// nobody has been told yet.
    case lastChance(Countdown)
    /// now ≥ deadline + grace: the targets are told.
    case overdue(Countdown)
    /// Away mode: no reminder, no overdue until it ends (then a fresh countdown starts).
    case away(until: WallTime)

    public var countdown: Countdown? {
        switch self {
        case .starting, .neverCheckedIn, .away: nil
        case let .checkedIn(countdown), let .reminder(countdown), let .lastChance(countdown), let .overdue(countdown): countdown
        }
    }

    public var name: String {
        switch self {
        case .starting: "starting"
        case .neverCheckedIn: "never_checked_in"
        case .checkedIn: "checked_in"
        case .reminder: "reminder"
        case .lastChance: "last_chance"
        case .overdue: "overdue"
        case .away: "away"
        }
    }
}

/// The deadline as of the moment the phase was last evaluated.
public struct Countdown: Hashable, Sendable {
    /// Wall-clock deadline, for people. (The countdown itself runs on monotonic time.)
    public var deadline: WallTime
    /// Time left when evaluated; negative once overdue.
    public var remaining: Duration

    public init(deadline: WallTime, remaining: Duration) {
        self.deadline = deadline
        self.remaining = remaining
    }
}

/// Brief feedback that overrides the phase pattern for a moment.
public enum Feedback: String, Hashable, Sendable {
    /// Shown only once a check-in is durably stored.
    case acknowledged
    case longPress
    /// Someone asked the device to show where it is (Home Assistant's identify button).
    case identify
}

/// The button as the feature sees it (already debounced by the GPIO backend).
public enum ButtonState: String, Hashable, Sendable {
    case released
    /// Down, not yet long enough to be a long press.
    case held
    /// Held past the long-press time: its release is not a check-in.
    case longPressed
    /// Down, and already used (it cancelled a help alert): its release is not a check-in.
    case consumed
}
