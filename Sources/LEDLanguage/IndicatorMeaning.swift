extension Indicator {
    /// What the indicator means, for the person beside the device and the family: the README's
    /// LED table and the printable LED card say exactly this (tests keep them in step).
    public var meaning: String {
        switch self {
        case .starting: "starting up (a moment)"
        case .neverCheckedIn: "no check-in yet on this device: press the button"
        case .checkedIn: "all is well: nothing to do"
        case .reminder: "check in soon: press the button"
        case .overdue: "overdue: the people who look after you are told; press now"
        case .fault: "the device has a problem: call the person who looks after it"
        case .acknowledged: "the press was stored (for a moment after each press)"
        case .longPress: "the button was held (help alerts are off)"
        case .pingPending: "someone asks \"are you OK?\": press the button to answer"
        case .alertCancelWindow: "help will be asked for in a few seconds: press again to cancel"
        case .alertSending: "asking for help: stored, not yet passed on"
        case .alertDelivered: "help asked for: someone is being told"
        case .checkedInNotUploaded: "checked in, but the device is cut off from the internet"
        case .reminderNotUploaded: "check in soon; the device is cut off from the internet"
        case .lastChance: "the deadline has passed: press now, before anyone is told"
        case .away: "away mode: nothing is asked until it ends"
        case .onBattery: "running on battery: the mains power is off"
        case .identify: "someone asked the device to show where it is (for 10 s): nothing to do"
        case .helpComing: "someone who looks after you is on the way; a press still checks in"
        case .dependentHelpAlert: "watcher: someone you look after asked for help; press to say you are on it"
        case .dependentOverdue: "watcher: someone you look after is overdue; press to say you are on it"
        case .dependentSilent: "watcher: someone's device has gone quiet (off or cut off)"
        case .dependentReminder: "watcher: someone's deadline is near"
        case .dependentsUnknown: "watcher: not heard of someone yet (lifesignalctl dependents)"
        case .dependentsOK: "watcher: everyone you look after is OK; a press pings them all"
        case .pingConfirm: "watcher: everyone will be pinged in a moment; press again to cancel"
        }
    }

    /// On a board whose LEDs cannot draw the standard pattern and whose config predates the
    /// indicator, it is shown as this one is: "help is coming" as overdue, a watcher's glance as the
    /// person's own indicator of the same urgency. Nil: the config must give a pattern.
    public var standIn: Indicator? {
        switch self {
        case .helpComing, .dependentHelpAlert, .dependentOverdue: .overdue
        case .dependentSilent: .lastChance
        case .dependentReminder: .reminder
        case .dependentsUnknown: .neverCheckedIn
        case .dependentsOK: .checkedIn
        case .pingConfirm: .alertCancelWindow
        default: nil
        }
    }

    /// How much the indicator asks of the person, which sets how fast it may blink (urgent faster
    /// than attention; `LEDLanguageTests` checks the standard patterns).
    public var urgency: Urgency {
        switch self {
        case .overdue, .lastChance, .fault, .alertCancelWindow, .dependentHelpAlert, .dependentOverdue: .urgent
        case .reminder, .reminderNotUploaded, .neverCheckedIn, .pingPending, .alertSending, .helpComing, .dependentSilent,
             .dependentReminder, .dependentsUnknown: .attention
        case .checkedIn, .checkedInNotUploaded, .away, .onBattery, .alertDelivered, .starting, .dependentsOK: .calm
        case .acknowledged, .longPress, .identify, .pingConfirm: .moment
        }
    }

    public enum Urgency: String, Hashable, Sendable, CaseIterable {
        /// Something must be done now.
        case urgent
        /// Something should be done soon.
        case attention
        /// Nothing to do.
        case calm
        /// Feedback for a moment after a press.
        case moment
    }
}
