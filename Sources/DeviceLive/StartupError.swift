import UplinkLive

/// Why the daemon could not start, with the exit code systemd acts on (sysexits.h):
/// a config error must not restart-loop (`RestartPreventExitStatus=78`), the rest may retry.
public struct StartupError: Error, Hashable, Sendable, CustomStringConvertible {
    public var exitCode: Int32
    public var message: String

    public init(exitCode: Int32, _ message: String) {
        self.exitCode = exitCode
        self.message = message
    }

    /// EX_CONFIG: the configuration is wrong; restarting will not help.
    public static func config(_ message: String) -> StartupError { StartupError(exitCode: 78, message) }
    /// EX_UNAVAILABLE: the GPIO chip or lines cannot be had.
    public static func gpio(_ message: String) -> StartupError { StartupError(exitCode: 69, message) }
    /// EX_UNAVAILABLE too: a transport of the uplink cannot start, most often because libcurl is
    /// missing (the message names the package); a thread that cannot start is EX_OSERR.
    static func uplink(_ what: String, _ failure: CurlTransport.StartFailure) -> StartupError {
        switch failure {
        case .libcurl: StartupError(exitCode: 69, "\(what): \(failure)")
        case .system: .system("\(what): \(failure)")
        }
    }
    /// EX_OSERR: the control socket or another OS resource failed.
    public static func system(_ message: String) -> StartupError { StartupError(exitCode: 71, message) }

    public var description: String { message }
}
