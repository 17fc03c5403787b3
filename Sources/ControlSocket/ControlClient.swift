import Glibc
import LinuxIO

/// The operator side of the control socket: one request line out, one response line back.
///
/// Blocking, with a deadline over the whole exchange: meant for `lifesignalctl`'s synchronous main,
/// not for an async context (it would hold a thread of the cooperative pool while it waits).
public enum ControlClient {
    /// A response longer than this is refused rather than read into memory without bound.
    public static let maxResponseBytes = 1 << 20

    /// Sends `line` (without newline; one is added) to the server at `path` and returns its
    /// response line without the newline.
    public static func send(
        _ line: String,
        to path: String,
        timeout: Duration = .seconds(5)
    ) throws(ControlSocketError) -> String {
        guard !line.utf8.contains(UInt8(ascii: "\n")) else {
            throw ControlSocketError(.invalidRequest, path: path, message: "a control request must be one line")
        }
        guard let address = UnixSocket.address(path) else { throw UnixSocket.pathTooLong(path) }
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let descriptor: Int32
        do { descriptor = try UnixSocket.make() } catch { throw .system(error, path: path) }
        defer { close(descriptor) }

        // Blocking calls bounded by SO_SNDTIMEO/SO_RCVTIMEO, renewed to the time left before each.
        UnixSocket.setTimeouts(descriptor, deadline - clock.now)
        let connectError = UnixSocket.connect(descriptor, to: address)
        if connectError != 0 { throw connectFailure(connectError, path: path, timeout: timeout) }

        var request = Array(line.utf8) + [UInt8(ascii: "\n")]
        var sent = 0
        while sent < request.count {
            UnixSocket.setTimeouts(descriptor, deadline - clock.now)
            let count = request.withUnsafeMutableBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            }
            if count < 0 {
                if errno == EINTR { continue }
                // The server may have answered (a refusal) and closed before reading all of the
                // request: its answer is still waiting to be read.
                if errno == EPIPE || errno == ECONNRESET { break }
                throw exchangeFailure(errno, operation: "send to", path: path, timeout: timeout)
            }
            sent += count
        }

        var response: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            guard clock.now < deadline else { throw .timedOut(path, after: timeout) }
            UnixSocket.setTimeouts(descriptor, deadline - clock.now)
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw exchangeFailure(errno, operation: "receive from", path: path, timeout: timeout)
            }
            if count == 0 {
                throw ControlSocketError(.connectionClosed, path: path,
                                         message: "lifesignald closed the connection on \(path) without a complete answer")
            }
            let received = chunk.prefix(count)
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                response += received[..<newline]
                return String(decoding: response, as: UTF8.self)
            }
            response += received
            guard response.count <= maxResponseBytes else {
                throw ControlSocketError(.responseTooLong, path: path,
                                         message: "the answer on \(path) is longer than \(maxResponseBytes) bytes")
            }
        }
    }

    /// The message for a failed `connect`, which is where "not running" and "no permission" show.
    static func connectFailure(_ code: Int32, path: String, timeout: Duration) -> ControlSocketError {
        switch code {
        case ENOENT: .notRunning(path)
        case ECONNREFUSED: .stale(path)
        case EACCES, EPERM: .permissionDenied(path)
        // A full accept backlog makes connect wait, bounded by SO_SNDTIMEO.
        case EAGAIN, EINPROGRESS, ETIMEDOUT: .timedOut(path, after: timeout)
        case ENOTSOCK:
            ControlSocketError(.invalidPath, path: path, message: "\(path) is not a socket: is the control socket path right?")
        default: .system("connect to", path, errno: code)
        }
    }

    private static func exchangeFailure(_ code: Int32, operation: String, path: String, timeout: Duration) -> ControlSocketError {
        switch code {
        case EAGAIN, EWOULDBLOCK: .timedOut(path, after: timeout)
        case EPIPE, ECONNRESET:
            ControlSocketError(.connectionClosed, path: path,
                               message: "lifesignald closed the connection on \(path) without a complete answer")
        default: .system(operation, path, errno: code)
        }
    }
}
