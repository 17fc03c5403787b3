/// One assignment of the service manager notification protocol (sd_notify(3)): what the daemon
/// tells systemd about itself. Each message is sent as one datagram of `NAME=value` lines.
public enum NotifyMessage: Hashable, Sendable {
    /// Start-up is complete: systemd considers a `Type=notify` unit started only now.
    case ready
    /// Shutdown has begun (systemd then waits for the process to exit).
    case stopping
    /// The watchdog keep-alive: the main loop is still running.
    case watchdog
    /// A one-line, human-readable state that `systemctl status` shows.
    case status(String)

    /// The `NAME=value` line for this message. A status is folded onto one line, because a line
    /// break would start a new assignment (and could forge one).
    public var assignment: String {
        switch self {
        case .ready: "READY=1"
        case .stopping: "STOPPING=1"
        case .watchdog: "WATCHDOG=1"
        case let .status(text): "STATUS=" + String(text.map { $0.isNewline ? " " : $0 })
        }
    }
}
