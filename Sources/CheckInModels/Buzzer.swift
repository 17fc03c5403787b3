/// What the buzzer says, in order of importance: the device decides one at a time (like the LEDs'
/// indicator) and `[buzzer]` turns each into a pattern.
public enum BuzzerSignal: String, Hashable, Sendable, CaseIterable {
    /// A help alert's cancel window is open: press to cancel.
    case alertCancelWindow = "alert_cancel_window"
    /// The deadline has passed; the people are told when the grace period ends.
    case lastChance = "last_chance"
    /// A responder asks "are you OK?".
    case ping
    /// Check in soon (silenced in quiet hours).
    case reminder
}
