/// One request from `lifesignalctl` to `lifesignald`, sent as one line of JSON over the control socket.
/// The wire format is documented in docs/control-protocol.md.
public struct ControlRequest: Codable, Hashable, Sendable {
    public enum Command: String, Codable, Hashable, Sendable, CaseIterable {
        case status
        case checkIn = "check-in"
        case history
        case settings
        case setSettings = "set-settings"
        case simPress = "sim-press"
        case dismissError = "dismiss-error"
        case queue
        /// Ask for help as a long press does: opens the cancel window.
        case alertSend = "alert-send"
        /// Cancel the alert whose cancel window is open.
        case alertCancel = "alert-cancel"
    }

    public var command: Command
    /// `history`: how many check-ins, newest first.
    public var limit: Int?
    /// `set-settings`: durations as text ("16h", "90m").
    public var interval: String?
    public var reminder: String?
    /// `sim-press`: how long the simulated button is held ("150ms", "4s").
    public var hold: String?

    public init(_ command: Command, limit: Int? = nil, interval: String? = nil, reminder: String? = nil, hold: String? = nil) {
        self.command = command
        self.limit = limit
        self.interval = interval
        self.reminder = reminder
        self.hold = hold
    }
}
