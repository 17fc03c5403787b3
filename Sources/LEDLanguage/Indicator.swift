/// What the LEDs must say, in order of how the feature decides it (see `CheckInState.indicator`).
public enum Indicator: String, Hashable, Sendable, CaseIterable, Codable {
    /// Loading the store at start-up; shown for a fraction of a second at most.
    case starting
    /// No check-in has ever been made on this device (or it is not configured).
    case neverCheckedIn = "never_checked_in"
    /// Checked in; the deadline is further away than the reminder lead.
    case checkedIn = "checked_in"
    /// The deadline is within the reminder lead: check in soon.
    case reminder
    /// The deadline has passed without a check-in.
    case overdue
    /// Something is wrong with the device itself (for example, a check-in could not be stored).
    case fault
    /// A check-in was just stored durably.
    case acknowledged
    /// The button was held for the long-press time.
    case longPress = "long_press"
    /// A responder pinged ("are you OK?") and the user has not answered yet: a press answers.
    case pingPending = "ping_pending"
    /// A help alert will be sent when the cancel window ends; a press cancels it.
    case alertCancelWindow = "alert_cancel_window"
    /// A help alert is stored and being sent; the backend has not acknowledged it yet.
    case alertSending = "alert_sending"
    /// The backend acknowledged the help alert (shown for a while).
    case alertDelivered = "alert_delivered"
    /// Checked in, but check-ins have waited longer than `[uplink] stale_after` to be uploaded:
    /// the device is cut off and the backend does not know.
    case checkedInNotUploaded = "checked_in_not_uploaded"
    /// Reminder, and check-ins have waited longer than `[uplink] stale_after` to be uploaded.
    case reminderNotUploaded = "reminder_not_uploaded"
    /// The deadline has passed; the grace period runs and nobody has been told yet.
    case lastChance = "last_chance"
    /// Away mode: nothing is asked of the person until it ends.
    case away
    /// Running on battery (the mains power is off) and nothing else needs doing.
    case onBattery = "on_battery"
    /// Someone asked the device to show where it is (Home Assistant's identify button), for a few seconds.
    case identify
    /// A watcher said "I'm on it" while the person is overdue or asking for help.
    case helpComing = "help_coming"

    // A watcher's glance (docs/dependents.md): the loudest status across the people it looks after.
    /// Someone the watcher looks after asked for help.
    case dependentHelpAlert = "dependent_help_alert"
    /// Someone the watcher looks after is overdue.
    case dependentOverdue = "dependent_overdue"
    /// Someone's device has not been heard of for longer than its heartbeat allows.
    case dependentSilent = "dependent_silent"
    /// Someone's deadline is near.
    case dependentReminder = "dependent_reminder"
    /// Someone has not been heard of yet (just started, or their source cannot be asked).
    case dependentsUnknown = "dependents_unknown"
    /// Everyone the watcher looks after is checked in (or away).
    case dependentsOK = "dependents_ok"
    /// The watcher's press will ping everyone when this ends; a second press cancels it.
    case pingConfirm = "ping_confirm"
}
