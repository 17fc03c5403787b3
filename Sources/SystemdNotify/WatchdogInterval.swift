import Glibc

/// How often to ping the watchdog: half of `$WATCHDOG_USEC` (sd_watchdog_enabled(3)), so that one
/// late ping is not yet a missed deadline.
public enum WatchdogInterval {
    /// The ping interval, or nil when the watchdog is off: `WATCHDOG_USEC` unset, empty, zero or not
    /// a number, or `WATCHDOG_PID` naming another process than `processID` (default: this one) (the variable leaked to a child).
    public static func pingInterval(environment: [String: String], processID: Int32? = nil) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0 else {
            return nil
        }
        if let pidText = environment["WATCHDOG_PID"], !pidText.isEmpty {
            guard let pid = Int32(pidText), pid == (processID ?? getpid()) else { return nil }
        }
        return .microseconds(Int64(clamping: microseconds / 2))
    }
}
