import Glibc
import LinuxIO
import Synchronization

/// The daemon side of the local control socket: a Unix-domain stream socket that serves one
/// newline-terminated request per connection with one response line, then closes.
///
/// Access control is layered: the socket's directory is created 0750 by the server, or, when it
/// exists, must be a real directory of the server's user (or root) that nobody else may write to
/// and that is not setgid, so nobody else can replace the socket or choose its group; the socket
/// file is mode 0660 (owner and group only), set without following links; and every peer's
/// kernel-verified credentials pass `authorize` before the handler sees the request (refused
/// peers get a one-line error). Connections are served by a poll loop on a dedicated thread, which
/// sleeps in `poll` with no timeout while idle and wakes through an eventfd when `stop()` is
/// called or a handler has answered. Idle or slow clients cannot starve the others: there is room
/// for thousands of connections, and when it is full the oldest connection that has gone 250 ms
/// without a complete request, of the user holding the most, is closed to make room.
public final class ControlServer: Sendable {
    public typealias Handler = @Sendable (_ request: String, _ peer: PeerCredentials) async -> String

    /// Why a connection got an error line instead of reaching the handler.
    public enum Rejection: Hashable, Sendable {
        case notAuthorized(PeerCredentials)
        case requestTooLong(limit: Int)
        case requestTimedOut(after: Duration)
    }

    public let path: String
    let socketGroup: UInt32?
    let requestTimeout: Duration
    let maxRequestBytes: Int
    let maxConnections: Int
    let authorize: (@Sendable (PeerCredentials) -> Bool)?
    let rejectionReply: @Sendable (Rejection) -> String
    let handler: Handler
    private let running = Mutex<RunningServer?>(nil)

    /// - Parameters:
    ///   - path: where the socket file lives; its parent directory is created (0750) if missing,
    ///     and refused if it exists but others could tamper with it.
    ///   - socketGroup: group to give the socket file (the service's group); nil keeps the
    ///     process's group.
    ///   - requestTimeout: how long a client has to send its line, and to take the answer.
    ///   - maxRequestBytes: longest request line accepted (requests are a few hundred bytes; this
    ///     bounds what idle connections can make the server hold).
    ///   - maxConnections: connections served at once; nil sizes it from the descriptor limit
    ///     (`connectionLimit(descriptorLimit:)`). When full, the oldest connection that has gone
    ///     250 ms without a complete request, of the user holding the most such connections, is
    ///     closed for a new one.
    ///   - authorize: which peers may talk to the daemon. nil = `defaultAuthorization`: root, the
    ///     server's own user, or a member of the socket file's group.
    ///   - rejectionReply: the line sent to a client that is refused (plain text by default; the
    ///     protocol layer may want JSON).
    ///   - handler: turns a request line into a response line.
    public init(
        path: String,
        socketGroup: UInt32? = nil,
        requestTimeout: Duration = .seconds(5),
        maxRequestBytes: Int = 4096,
        maxConnections: Int? = nil,
        authorize: (@Sendable (PeerCredentials) -> Bool)? = nil,
        rejectionReply: @escaping @Sendable (Rejection) -> String = ControlServer.plainRejectionReply,
        handler: @escaping Handler
    ) {
        let maxConnections = maxConnections ?? Self.connectionLimit(descriptorLimit: DescriptorLimit.current)
        precondition(maxRequestBytes > 0 && maxConnections > 0, "the control server needs room for a request")
        self.path = path
        self.socketGroup = socketGroup
        self.requestTimeout = requestTimeout
        self.maxRequestBytes = maxRequestBytes
        self.maxConnections = maxConnections
        self.authorize = authorize
        self.rejectionReply = rejectionReply
        self.handler = handler
    }

    /// Connections to serve at once with `descriptorLimit` open files: all but 128 descriptors
    /// (the store, GPIO, eventfds, the uplink) for clients, at most 4096 (each may hold a partial
    /// request of up to `maxRequestBytes`), at least 16.
    public static func connectionLimit(descriptorLimit: Int) -> Int {
        min(max(descriptorLimit - 128, 16), 4096)
    }

    /// Root, the user the server runs as, or a member of `socketGroup`.
    public static func defaultAuthorization(
        serverUID: UInt32,
        socketGroup: UInt32
    ) -> @Sendable (PeerCredentials) -> Bool {
        { peer in peer.uid == 0 || peer.uid == serverUID || peer.isMember(ofGroup: socketGroup) }
    }

    public static func plainRejectionReply(_ rejection: Rejection) -> String {
        switch rejection {
        case .notAuthorized(let peer):
            "error: permission denied for uid \(peer.uid): run as root or as a member of the control socket's group"
        case .requestTooLong(let limit):
            "error: request longer than \(limit) bytes"
        case .requestTimedOut(let timeout):
            "error: no complete request line within \(durationText(timeout))"
        }
    }

    /// Binds the socket and starts serving. Refuses if another server answers on `path`, or if the
    /// socket's directory is one others could tamper with; removes a stale socket file left by a
    /// server that died.
    public func start() throws(ControlSocketError) {
        let alreadyStarted = running.withLock { $0 != nil }
        guard !alreadyStarted else { return }
        guard let address = UnixSocket.address(path) else { throw UnixSocket.pathTooLong(path) }

        let directory = try SocketDirectory.open(for: path)
        defer { directory.close() }
        try removeStaleSocket(address)
        let listener = try bindListener(address, in: directory)
        var identity = stat()
        guard fstatat(directory.descriptor, directory.socketName, &identity, AT_SYMLINK_NOFOLLOW) == 0 else {
            let error = ControlSocketError.system("stat", path, errno: errno)
            close(listener)
            throw error
        }
        let policy = authorize ?? Self.defaultAuthorization(serverUID: geteuid(), socketGroup: identity.st_gid)

        let loop: ServerLoop
        let thread: DedicatedThread
        do {
            loop = try ServerLoop(listener: listener, server: self, authorize: policy)
            thread = try DedicatedThread.start(name: "control-socket") { loop.run() }
        } catch {
            close(listener)
            unlink(path)
            throw .system(error, path: path)
        }
        running.withLock {
            $0 = RunningServer(loop: loop, thread: thread, device: identity.st_dev, inode: identity.st_ino)
        }
    }

    /// Stops accepting, closes every connection, waits for the loop thread and removes the socket
    /// file (only if it is still ours). Idempotent. Handlers still running finish, but their
    /// answers are dropped.
    public func stop() {
        guard let server = running.withLock({ slot in
            defer { slot = nil }
            return slot
        }) else { return }
        server.loop.requestStop()
        server.thread.join()
        var current = stat()
        if lstat(path, &current) == 0, current.st_dev == server.device, current.st_ino == server.inode {
            unlink(path)
        }
    }

    deinit {
        stop()
    }

    // MARK: Binding

    private func removeStaleSocket(_ address: sockaddr_un) throws(ControlSocketError) {
        var existing = stat()
        guard lstat(path, &existing) == 0 else { return }
        guard existing.st_mode & S_IFMT == S_IFSOCK else {
            throw ControlSocketError(.invalidPath, path: path,
                                     message: "\(path) exists and is not a socket: remove it or configure another control socket path")
        }
        let probe: Int32
        do { probe = try UnixSocket.make() } catch { throw .system(error, path: path) }
        defer { close(probe) }
        UnixSocket.setTimeouts(probe, .seconds(1))
        switch UnixSocket.connect(probe, to: address) {
        case 0, EAGAIN:
            // Someone accepted (or has a full backlog): a live server owns this path.
            throw .alreadyRunning(path)
        case ECONNREFUSED:
            guard unlink(path) == 0 || errno == ENOENT else {
                throw .system("remove stale socket", path, errno: errno)
            }
        case ENOENT:
            return  // removed meanwhile
        case let code:
            throw ControlClient.connectFailure(code, path: path, timeout: .seconds(1))
        }
    }

    private func bindListener(_ address: sockaddr_un, in directory: SocketDirectory) throws(ControlSocketError) -> Int32 {
        let listener: Int32
        do { listener = try UnixSocket.make() } catch { throw .system(error, path: path) }
        UnixSocket.setNonBlocking(listener)
        // The socket file takes the socket's mode (less the umask) at bind: never more than 0660,
        // even for the moment before the exact mode is set below.
        _ = fchmod(listener, 0o660)
        var failure: ControlSocketError?
        let bindError = UnixSocket.bind(listener, to: address)
        let name = directory.socketName
        if bindError != 0 {
            failure = bindError == EADDRINUSE ? .alreadyRunning(path) : .system("bind", path, errno: bindError)
        } else if let moved = directory.movedError() {
            failure = moved
        } else if fchmodat(directory.descriptor, name, 0o660, AT_SYMLINK_NOFOLLOW) != 0 {
            // Relative to the directory checked above, never through a link. Until listen()
            // nobody can connect, so setting the mode here leaves no window.
            failure = .system("chmod 0660", path, errno: errno)
        } else if let socketGroup, fchownat(directory.descriptor, name, uid_t.max, socketGroup, AT_SYMLINK_NOFOLLOW) != 0 {
            failure = .system("chown to group \(socketGroup)", path, errno: errno)
        } else if listen(listener, SOMAXCONN) != 0 {
            failure = .system("listen on", path, errno: errno)
        }
        if let failure {
            close(listener)
            if bindError == 0 { unlinkat(directory.descriptor, name, 0) }
            throw failure
        }
        return listener
    }
}

private struct RunningServer: Sendable {
    let loop: ServerLoop
    let thread: DedicatedThread
    let device: UInt
    let inode: UInt
}
