import Glibc
import LinuxIO
import Synchronization

/// The control server's poll loop: accepts, reads request lines, hands them to the async handler,
/// writes the answers. Runs on one dedicated thread; only `requestStop` and `answer` are called
/// from elsewhere, and both just record and signal the eventfd.
final class ServerLoop: Sendable {
    private let listener: Int32
    private let path: String
    private let requestTimeout: Duration
    private let maxRequestBytes: Int
    private let maxConnections: Int
    private let authorize: @Sendable (PeerCredentials) -> Bool
    private let rejectionReply: @Sendable (ControlServer.Rejection) -> String
    private let handler: ControlServer.Handler
    private let wakeup: WakeupEvent
    private let inbox = Mutex(Inbox())
    /// Only touched by the loop thread; in a Mutex so the class can be Sendable.
    private let connections = Mutex<[UInt64: Connection]>([:])
    private let clock = ContinuousClock()

    private struct Inbox {
        var stopRequested = false
        var answers: [(UInt64, String)] = []
    }

    private struct Connection {
        enum Phase {
            case reading([UInt8])
            case handling
            case writing([UInt8], sent: Int)
        }

        let descriptor: Int32
        let peer: PeerCredentials
        var phase: Phase
        var deadline: ContinuousClock.Instant
        let acceptedAt: ContinuousClock.Instant
    }

    init(listener: Int32, server: ControlServer, authorize: @escaping @Sendable (PeerCredentials) -> Bool) throws(SystemError) {
        self.listener = listener
        self.path = server.path
        self.requestTimeout = server.requestTimeout
        self.maxRequestBytes = server.maxRequestBytes
        self.maxConnections = server.maxConnections
        self.authorize = authorize
        self.rejectionReply = server.rejectionReply
        self.handler = server.handler
        self.wakeup = try WakeupEvent()
    }

    func requestStop() {
        inbox.withLock { $0.stopRequested = true }
        wakeup.signal()
    }

    private func answer(_ id: UInt64, _ response: String) {
        inbox.withLock { $0.answers.append((id, response)) }
        wakeup.signal()
    }

    /// While set, the listener is not polled: accepting failed for lack of descriptors, and a
    /// readable listener would otherwise spin the loop.
    private let acceptPausedUntil = Mutex<ContinuousClock.Instant?>(nil)

    func run() {
        var nextID: UInt64 = 0
        connections.withLock { connections in
            defer {
                for connection in connections.values { close(connection.descriptor) }
                connections.removeAll()
                close(listener)
            }
            while true {
                let ids = Array(connections.keys)
                var fds = [
                    pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0),
                    // A negative descriptor is skipped by poll: at the limit with nobody idle to
                    // make room, new clients wait in the backlog.
                    pollfd(fd: acceptsNow(connections) ? listener : -1, events: Int16(POLLIN), revents: 0),
                ]
                for id in ids {
                    let connection = connections[id]!
                    let events: Int32 = switch connection.phase {
                    case .reading: POLLIN
                    case .writing: POLLOUT
                    case .handling: 0
                    }
                    fds.append(pollfd(fd: events == 0 ? -1 : connection.descriptor, events: Int16(events), revents: 0))
                }
                let ready = poll(&fds, nfds_t(fds.count), pollTimeout(connections))
                if ready < 0 && errno != EINTR { return }  // EINVAL/ENOMEM: nothing left to serve with

                if fds[0].revents != 0 {
                    wakeup.drain()
                    let (stop, answers) = inbox.withLock { inbox in
                        defer { inbox.answers.removeAll() }
                        return (inbox.stopRequested, inbox.answers)
                    }
                    if stop { return }
                    for (id, response) in answers where connections[id] != nil {
                        respond(&connections[id]!, with: response)
                    }
                }
                for (offset, id) in ids.enumerated() where fds[offset + 2].revents != 0 {
                    service(id, in: &connections)
                }
                expire(&connections)
                if ready > 0 && fds[1].revents != 0 {
                    acceptAll(into: &connections, nextID: &nextID)
                }
                // Answers computed while writing may already be finished: flush them now.
                for id in Array(connections.keys) {
                    if case .writing = connections[id]!.phase { service(id, in: &connections) }
                }
            }
        }
    }

    // MARK: Steps

    private func acceptAll(into connections: inout [UInt64: Connection], nextID: inout UInt64) {
        while true {
            // Full: a new client may only come in if an idle one can make room.
            if connections.count >= maxConnections && victim(in: connections) == nil { return }
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else {
                if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                    // Out of descriptors or memory: the client stays in the backlog; try again soon.
                    acceptPausedUntil.withLock { $0 = clock.now + .milliseconds(250) }
                }
                return  // EAGAIN: backlog empty; others (ECONNABORTED...): next round
            }
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            UnixSocket.setNonBlocking(descriptor)
            guard let peer = try? PeerCredentials.of(descriptor) else {
                close(descriptor)  // cannot tell who it is: never serve it
                continue
            }
            if connections.count >= maxConnections, let victim = victim(in: connections) {
                finish(victim, in: &connections)
            }
            nextID += 1
            let now = clock.now
            var connection = Connection(descriptor: descriptor, peer: peer, phase: .reading([]),
                                        deadline: now + requestTimeout, acceptedAt: now)
            if !authorize(peer) {
                respond(&connection, with: rejectionReply(.notAuthorized(peer)))
            }
            connections[nextID] = connection
        }
    }

    private func service(_ id: UInt64, in connections: inout [UInt64: Connection]) {
        guard var connection = connections[id] else { return }
        switch connection.phase {
        case .handling:
            return
        case .reading(var buffer):
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { recv(connection.descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { return }
                return finish(id, in: &connections)
            }
            if count == 0 {
                // The client stopped sending: a line without its newline still counts; nothing
                // at all (a liveness probe) just closes.
                guard !buffer.isEmpty else { return finish(id, in: &connections) }
                connection.phase = .handling
                connections[id] = connection
                return dispatch(id, buffer, peer: connection.peer)
            }
            let received = chunk.prefix(count)
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                buffer += received[..<newline]
                if buffer.count <= maxRequestBytes {
                    connection.phase = .handling
                    connections[id] = connection
                    return dispatch(id, buffer, peer: connection.peer)
                }
            } else {
                buffer += received
            }
            if buffer.count > maxRequestBytes {
                respond(&connection, with: rejectionReply(.requestTooLong(limit: maxRequestBytes)))
            } else {
                connection.phase = .reading(buffer)
            }
            connections[id] = connection
        case .writing(let bytes, var sent):
            while sent < bytes.count {
                let count = bytes.withUnsafeBytes { buffer in
                    send(connection.descriptor, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN { break }
                    return finish(id, in: &connections)  // the client went away
                }
                sent += count
            }
            guard sent < bytes.count else { return finish(id, in: &connections) }
            connection.phase = .writing(bytes, sent: sent)
            connections[id] = connection
        }
    }

    private func dispatch(_ id: UInt64, _ request: [UInt8], peer: PeerCredentials) {
        var line = request
        if line.last == UInt8(ascii: "\r") { line.removeLast() }
        let text = String(decoding: line, as: UTF8.self)
        let handler = self.handler
        Task {
            let response = await handler(text, peer)
            self.answer(id, response)
        }
    }

    private func respond(_ connection: inout Connection, with response: String) {
        var bytes = Array(response.utf8)
        if bytes.last != UInt8(ascii: "\n") { bytes.append(UInt8(ascii: "\n")) }
        connection.phase = .writing(bytes, sent: 0)
        connection.deadline = clock.now + requestTimeout
    }

    private func finish(_ id: UInt64, in connections: inout [UInt64: Connection]) {
        if let connection = connections.removeValue(forKey: id) { close(connection.descriptor) }
    }

    /// Slow clients: a request not complete in time gets an error line; an answer not taken in
    /// time is dropped with the connection.
    private func expire(_ connections: inout [UInt64: Connection]) {
        let now = clock.now
        for (id, connection) in connections where connection.deadline <= now {
            switch connection.phase {
            case .reading:
                var late = connection
                respond(&late, with: rejectionReply(.requestTimedOut(after: requestTimeout)))
                connections[id] = late
            case .writing:
                finish(id, in: &connections)
            case .handling:
                break  // our own handler: not bounded here
            }
        }
    }

    /// How long a connection must have gone without a complete request before it may be closed
    /// for a new one: a client that has just connected is about to send its line (lifesignalctl
    /// sends at once), and closing it would refuse the very kind of client the slots are for.
    static let evictionGrace = Duration.milliseconds(250)

    /// The connection to close when a new one needs its slot (see `evictionVictim`).
    private func victim(in connections: [UInt64: Connection]) -> UInt64? {
        let idleSince = clock.now - Self.evictionGrace
        return Self.evictionVictim(connections.compactMap { id, connection in
            guard case .reading = connection.phase, connection.acceptedAt <= idleSince else { return nil }
            return (id: id, uid: connection.peer.uid)
        })
    }

    /// When the oldest connection still reading becomes a possible victim, if the loop is full
    /// and has none yet: it must wake then to accept. Nil otherwise (no timer while idle).
    private func nextEvictable(_ connections: [UInt64: Connection]) -> ContinuousClock.Instant? {
        guard connections.count >= maxConnections, victim(in: connections) == nil else { return nil }
        return connections.values.compactMap { connection -> ContinuousClock.Instant? in
            if case .reading = connection.phase { connection.acceptedAt + Self.evictionGrace } else { nil }
        }.min()
    }

    /// Among connections that have gone `evictionGrace` without a complete request (`candidates`,
    /// ids in accept order), the oldest of the user who holds the most: a client flooding the
    /// socket with idle connections loses its own, not other users'. Nil when there is none.
    static func evictionVictim(_ candidates: [(id: UInt64, uid: UInt32)]) -> UInt64? {
        var byUser: [UInt32: (count: Int, oldest: UInt64)] = [:]
        for candidate in candidates {
            let entry = byUser[candidate.uid] ?? (0, candidate.id)
            byUser[candidate.uid] = (entry.count + 1, min(entry.oldest, candidate.id))
        }
        return byUser.values.max { lhs, rhs in
            lhs.count != rhs.count ? lhs.count < rhs.count : lhs.oldest > rhs.oldest
        }?.oldest
    }

    private func acceptsNow(_ connections: [UInt64: Connection]) -> Bool {
        guard connections.count < maxConnections || victim(in: connections) != nil else { return false }
        return acceptPausedUntil.withLock { paused in
            if let until = paused, clock.now < until { return false }
            paused = nil
            return true
        }
    }

    /// Milliseconds until the nearest deadline of a connection poll waits on (or the end of an
    /// accept pause); -1 (forever) when there is none, so an idle daemon never wakes.
    private func pollTimeout(_ connections: [UInt64: Connection]) -> Int32 {
        var deadlines = connections.values.compactMap { connection -> ContinuousClock.Instant? in
            if case .handling = connection.phase { return nil }
            return connection.deadline
        }
        if let paused = acceptPausedUntil.withLock({ $0 }) { deadlines.append(paused) }
        if let evictable = nextEvictable(connections) { deadlines.append(evictable) }
        guard let nearest = deadlines.min() else { return -1 }
        let remaining = clock.now.duration(to: nearest)
        guard remaining > .zero else { return 0 }
        let milliseconds = remaining.components.seconds * 1000
            + (remaining.components.attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}
