import CheckInModels
import LinuxIO

/// A control-socket failure with a one-line message a person can act on.
public struct ControlSocketError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Code: String, Hashable, Sendable {
        /// No socket file: the daemon is not running (or uses another path).
        case notRunning
        /// A socket file nobody listens on: the daemon died without removing it.
        case staleSocket
        case permissionDenied
        case timedOut
        /// Another live server answers on the path.
        case alreadyRunning
        /// The peer closed the connection without a complete answer.
        case connectionClosed
        case responseTooLong
        case invalidRequest
        /// The path is unusable (too long for a Unix socket, not a socket, or reached through a link).
        case invalidPath
        /// The daemon's side: the socket's directory is one that others could tamper with.
        case unsafeDirectory
        /// The client's side: the process answering is not one it may believe (`ServerTrust`).
        case untrustedServer
        /// Any other system call failure; the message carries the operation and errno text.
        case system
    }

    public var code: Code
    public var path: String
    public var message: String

    /// Control characters in `message` (a path from the command line, say) are escaped: it is
    /// printed on a terminal.
    public init(_ code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = TerminalText.escaped(message)
    }

    public var description: String { message }

    static func notRunning(_ path: String) -> Self {
        Self(.notRunning, path: path, message: "lifesignald is not running: no control socket at \(path)")
    }

    static func stale(_ path: String) -> Self {
        Self(.staleSocket, path: path, message: "lifesignald is not running: stale control socket at \(path)")
    }

    static func permissionDenied(_ path: String) -> Self {
        Self(.permissionDenied, path: path,
             message: "permission denied on \(path): run as root or as a member of group 'lifesignal'")
    }

    static func timedOut(_ path: String, after timeout: Duration) -> Self {
        Self(.timedOut, path: path,
             message: "lifesignald did not answer within \(durationText(timeout)) on \(path)")
    }

    static func alreadyRunning(_ path: String) -> Self {
        Self(.alreadyRunning, path: path, message: "lifesignald already running, socket \(path)")
    }

    static func system(_ operation: String, _ path: String, errno: Int32) -> Self {
        Self(.system, path: path, message: "\(operation) \(path): \(errnoText(errno)) (errno \(errno))")
    }

    static func system(_ error: SystemError, path: String) -> Self {
        Self(.system, path: path, message: error.description)
    }
}

/// "5 s", "250 ms", "1.5 s": short enough for an error line.
func durationText(_ duration: Duration) -> String {
    let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    if milliseconds < 1000 { return "\(milliseconds) ms" }
    if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
    return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s"
}
