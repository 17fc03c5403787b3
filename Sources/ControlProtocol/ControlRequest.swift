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
        /// The notifications; `type` / `unreadOnly` change the remembered filter first.
        case notifications
        case notificationRead = "notification-read"
        case notificationsReadAll = "notifications-read-all"
        case notificationClear = "notification-clear"
        case notificationsClearAll = "notifications-clear-all"
        /// Responders' pings waiting for a press, and the upload of the answers.
        case pings
        /// Ask for help as a long press does: opens the cancel window.
        case alertSend = "alert-send"
        /// Cancel the alert whose cancel window is open.
        case alertCancel = "alert-cancel"
        /// Away mode until `until` (a duration, a time of day, a date, a date and time).
        case away
        /// End away mode now: a fresh countdown starts.
        case awayEnd = "away-end"
        /// The away periods, newest first (`limit`).
        case awayList = "away-list"
        /// Set a simulated input (`line`: mains, low_battery; `active`).
        case simInput = "sim-input"
        /// A watcher's dependents (`name`: one of them, for `dependents show`).
        case dependents
        /// Add a dependent by pairing code (`code`, optionally `name`).
        case dependentsAdd = "dependents-add"
        case dependentsRemove = "dependents-remove"
        case dependentsPing = "dependents-ping"
        case dependentsClearPing = "dependents-clear-ping"
        /// "I'm on it" to one dependent.
        case dependentsOnIt = "dependents-on-it"
        /// Sort the list (`sort`: status, name, deadline), kept in the store.
        case dependentsSort = "dependents-sort"
        /// The person's responders and who is told (`name`: one of them, for `responders show`);
        /// the polled sources are asked first.
        case responders
        /// Remove a watcher device (`name`): its pings and "I'm on it" are refused from now on.
        case respondersRemove = "responders-remove"
        /// Let a removed watcher (`name`) confirm again.
        case respondersAllow = "responders-allow"
    }

    public var command: Command
    /// `history`: how many check-ins, newest first.
    public var limit: Int?
    /// `set-settings`: durations as text ("16h", "90m").
    public var interval: String?
    public var reminder: String?
    /// `sim-press`: how long the simulated button is held ("150ms", "4s").
    public var hold: String?
    /// `notification-read`, `notification-clear`: the notification's id, or a unique prefix of it.
    public var notificationID: String?
    /// `notifications`: show only this type from now on (`all`, or alert, ping, role, added, removed, checkIn).
    public var type: String?
    /// `notifications`: show only unread ones from now on (false: all).
    public var unreadOnly: Bool?
    /// `away`: how long or until when, as a person wrote it (`AwayUntil`).
    public var until: String?
    /// `sim-input`: which input, and its level.
    public var line: String?
    public var active: Bool?
    /// `dependents-*`: the dependent's name (`dependents-add`: the name to show them by); `responders-*`: the responder's.
    public var name: String? = nil
    /// `dependents-add`: the pairing code from `lifesignalctl pair` on their device.
    public var code: String? = nil
    /// `dependents-sort`: status, name or deadline.
    public var sort: String? = nil

    public init(_ command: Command, limit: Int? = nil, interval: String? = nil, reminder: String? = nil, hold: String? = nil,
                notificationID: String? = nil, type: String? = nil, unreadOnly: Bool? = nil, until: String? = nil,
                line: String? = nil, active: Bool? = nil) {
        self.until = until
        self.line = line
        self.active = active
        self.command = command
        self.limit = limit
        self.interval = interval
        self.reminder = reminder
        self.hold = hold
        self.notificationID = notificationID
        self.type = type
        self.unreadOnly = unreadOnly
    }
}
