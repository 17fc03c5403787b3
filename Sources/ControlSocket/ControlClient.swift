import Glibc
import LinuxIO

/// The operator side of the control socket: one request line out, one response line back.
///
/// Blocking, with a deadline over the whole exchange: meant for `lifesignalctl`'s synchronous main,
/// not for an async context (it would hold a thread of the cooperative pool while it waits).
///
/// Before anything is sent the client makes sure it talks to lifesignald: the path is a socket
/// reached without a symbolic link (in its name or its directory), and the process listening runs
/// as a user `ServerTrust` believes (kernel-verified credentials, `SO_PEERCRED`).
public enum ControlClient {
    /// A response longer than this is refused rather than read into memory without bound. The
    /// longest answer both ends allow, `history` with 10,000 check-ins, is about 1.9 MB
    /// (HostileInputEndToEndTests fills a store to check it): this leaves twice that.
    public static let maxResponseBytes = 4 << 20

    /// Sends `line` (without newline; one is added) to the server at `path` and returns its
    /// response line without the newline.
    public static func send(
        _ line: String,
        to path: String,
        timeout: Duration = .seconds(5),
        trusting trust: ServerTrust = .sameUser
    ) throws(ControlSocketError) -> String {
        guard !line.utf8.contains(UInt8(ascii: "\n")) else {
            throw ControlSocketError(.invalidRequest, path: path, message: "a control request must be one line")
        }
        guard let address = UnixSocket.address(path) else { throw UnixSocket.pathTooLong(path) }
        try checkPath(path)
        let clock = ContinuousClock()
        let deadline = clock.now + timeout
        let descriptor: Int32
        do { descriptor = try UnixSocket.make() } catch { throw .system(error, path: path) }
        defer { close(descriptor) }

        // Blocking calls bounded by SO_SNDTIMEO/SO_RCVTIMEO, renewed to the time left before each.
        UnixSocket.setTimeouts(descriptor, deadline - clock.now)
        let connectError = UnixSocket.connect(descriptor, to: address)
        if connectError != 0 { throw connectFailure(connectError, path: path, timeout: timeout) }
        try checkServer(on: descriptor, path: path, trust: trust)

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
        var chunk = [UInt8](repeating: 0, count: 65_536)
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
                guard response.count <= maxResponseBytes else { throw responseTooLong(path) }
                return String(decoding: response, as: UTF8.self)
            }
            response += received
            guard response.count <= maxResponseBytes else { throw responseTooLong(path) }
        }
    }

    private static func responseTooLong(_ path: String) -> ControlSocketError {
        ControlSocketError(.responseTooLong, path: path,
                           message: "the answer on \(path) is longer than \(maxResponseBytes) bytes")
    }

    /// The path must name a socket, not a link to one, in a directory that is not a link either:
    /// following a link is how a client would be led to a fake daemon.
    static func checkPath(_ path: String) throws(ControlSocketError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            switch errno {
            case ENOENT, ENOTDIR: throw .notRunning(path)
            case EACCES: throw .permissionDenied(path)
            case let code: throw .system("look at", path, errno: code)
            }
        }
        let linkRefusal = "lifesignalctl does not follow links to the control socket (one could lead to a fake "
            + "daemon); give the socket's own path"
        if info.st_mode & S_IFMT == S_IFLNK {
            throw ControlSocketError(.invalidPath, path: path, message: "\(path) is a symbolic link: \(linkRefusal)")
        }
        guard info.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(.invalidPath, path: path, message: "\(path) is not a socket but "
                + "\(fileKind(info.st_mode)): give the path of lifesignald's control socket (lifesignalctl --socket PATH)")
        }
        let directory = UnixSocket.parentDirectory(of: path)
        var parent = stat()
        if lstat(directory, &parent) == 0, parent.st_mode & S_IFMT == S_IFLNK {
            throw ControlSocketError(.invalidPath, path: path,
                                     message: "the control socket's directory \(directory) is a symbolic link: \(linkRefusal)")
        }
    }

    /// Believes the peer only if `trust` does (its credentials are the kernel's, taken at `listen`).
    static func checkServer(on descriptor: Int32, path: String, trust: ServerTrust) throws(ControlSocketError) {
        let peer: PeerCredentials
        do { peer = try PeerCredentials.of(descriptor) } catch { throw .system(error, path: path) }
        let directory = UnixSocket.parentDirectory(of: path)
        let trustedOwner = ServerTrust.trustedOwner(ofDirectory: directory)
        guard !trust.allows(peer.uid, directoryOwner: trustedOwner) else { return }
        var believed = ["root"]
        if geteuid() != 0 { believed.append("you (\(userText(geteuid())))") }
        if let service = trust.serviceUser { believed.append("the service user \(service.name) (uid \(service.uid))") }
        var info = stat()
        let owner = lstat(directory, &info) == 0 ? " (it belongs to \(userText(info.st_uid)))" : ""
        throw ControlSocketError(
            .untrustedServer, path: path,
            message: "the process answering on \(path) runs as \(userText(peer.uid)), not as "
                + listed(believed)
                + ": it is not the lifesignald you mean, so nothing was sent to it. If someone else created "
                + "\(directory)\(owner), remove it and restart lifesignald; or give the right socket with --socket")
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

/// "a", "a or b", "a, b or c".
private func listed(_ items: [String]) -> String {
    guard let last = items.last, items.count > 1 else { return items.first ?? "" }
    return items.dropLast().joined(separator: ", ") + " or " + last
}
