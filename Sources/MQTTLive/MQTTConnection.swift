import CheckInModels
import CMosquitto
import Glibc
public import LinuxIO
public import MQTTClient
import Synchronization

/// One MQTT connection, driven by libmosquitto on a thread of the daemon's own.
///
/// libmosquitto's own thread (`mosquitto_loop_start`) wakes every second to look for work; this
/// loop instead sleeps in `poll` on the connection's socket and an eventfd, with a timeout only
/// for the next keep-alive ping: an idle connection wakes the device twice per keep-alive (the
/// ping and its answer), never in between. Every libmosquitto call runs on this thread; other
/// threads hand it commands through a queue and the eventfd.
///
/// Each connection attempt gets a fresh libmosquitto handle, so nothing of a failed or lost
/// connection (a half-done TLS handshake, queued packets) lingers into the next one.
public final class MQTTConnection: Sendable {
    /// "mqtt://host:port" or "mqtts://host:port".
    public let broker: String
    /// The connection's life (unbounded: one event per attempt).
    public let connectionEvents: AsyncStream<MQTTConnectionEvent>
    /// Messages on the subscriptions; the newest 64 unread are kept under a flood.
    public let messages: AsyncStream<MQTTInboundMessage>
    private let loop: ConnectionLoop
    private let thread: DedicatedThread

    public init(settings: MQTTConnectionSettings, library: LibMosquitto, threadName: String = "mqtt") throws(SystemError) {
        broker = settings.broker
        let (connectionEvents, connectionContinuation) = AsyncStream<MQTTConnectionEvent>.makeStream()
        let (messages, messageContinuation) = AsyncStream<MQTTInboundMessage>.makeStream(bufferingPolicy: .bufferingNewest(64))
        self.connectionEvents = connectionEvents
        self.messages = messages
        let loop = try ConnectionLoop(library: library, settings: settings, connectionEvents: connectionContinuation,
                                      messages: messageContinuation)
        self.loop = loop
        thread = try DedicatedThread.start(name: threadName) { loop.run() }
    }

    deinit {
        close()
    }

    /// Starts a connection attempt (ending the current connection, if any, without a clean
    /// disconnect); `.connected` or a failure follows on `connectionEvents`.
    public func connect(_ options: MQTTConnectOptions) {
        loop.submit(.connect(options))
    }

    /// Publishes `message`; QoS 1 returns once the broker has acknowledged it.
    public func publish(_ message: MQTTMessage) async -> Result<Void, MQTTFailure> {
        await withCheckedContinuation { continuation in loop.submit(.publish(message, continuation)) }
    }

    /// Subscribes to the topic filters (QoS 1); returns once the broker has acknowledged them.
    public func subscribe(_ filters: [String]) async -> Result<Void, MQTTFailure> {
        await withCheckedContinuation { continuation in loop.submit(.subscribe(filters, continuation)) }
    }

    /// Ends the connection with a DISCONNECT, so the broker does not publish the last will.
    public func disconnect() async {
        await withCheckedContinuation { continuation in loop.submit(.disconnect(continuation)) }
    }

    /// Ends the thread without waiting for it: a connection still open is dropped without a
    /// DISCONNECT (the broker publishes the last will), what waits on it fails. A thread blocked
    /// in a name lookup ends when the lookup returns. Idempotent.
    public func close() {
        loop.stop()
    }
}

/// A request from another thread, run on the loop's thread.
private enum Command: Sendable {
    case connect(MQTTConnectOptions)
    case publish(MQTTMessage, CheckedContinuation<Result<Void, MQTTFailure>, Never>)
    case subscribe([String], CheckedContinuation<Result<Void, MQTTFailure>, Never>)
    case disconnect(CheckedContinuation<Void, Never>)
}

/// The loop's side. `@unchecked Sendable`: the queue and the stop flag are guarded (Mutex,
/// Atomic); every other property is touched only on the loop's thread (`run` and the libmosquitto
/// callbacks it causes).
private final class ConnectionLoop: @unchecked Sendable {
    private enum Phase: Equatable {
        case idle
        /// CONNECT sent (or being sent), no CONNACK yet.
        case connecting
        case connected
        /// DISCONNECT asked for; the broker closes the connection.
        case disconnecting
    }

    private let library: LibMosquitto
    private let settings: MQTTConnectionSettings
    private let connectionEvents: AsyncStream<MQTTConnectionEvent>.Continuation
    private let messages: AsyncStream<MQTTInboundMessage>.Continuation
    private let inbox = Mutex<[Command]>([])
    private let wakeup: WakeupEvent
    private let stopping = Atomic<Bool>(false)

    // Loop thread only.
    private var handle: OpaquePointer?
    private var phase = Phase.idle
    private var publishes: [Int32: CheckedContinuation<Result<Void, MQTTFailure>, Never>] = [:]
    private var subscriptions: [Int32: SubscribeGroup] = [:]
    private var disconnectWaiters: [CheckedContinuation<Void, Never>] = []
    /// The last error libmosquitto logged in this attempt (OpenSSL's reason for a failed handshake).
    private var lastLoggedError: String?
    /// Seconds on CLOCK_MONOTONIC, read after the call that sent or received (libmosquitto's
    /// keep-alive clock, `mosquitto_time`): libmosquitto pings once `keepAlive` has passed since
    /// the later of the two, so the loop wakes exactly then.
    private var lastSent: Int = 0
    private var lastReceived: Int = 0

    init(library: LibMosquitto, settings: MQTTConnectionSettings,
         connectionEvents: AsyncStream<MQTTConnectionEvent>.Continuation,
         messages: AsyncStream<MQTTInboundMessage>.Continuation) throws(SystemError) {
        self.library = library
        self.settings = settings
        self.connectionEvents = connectionEvents
        self.messages = messages
        wakeup = try WakeupEvent()
    }

    func submit(_ command: Command) {
        let refused = inbox.withLock { queue -> Command? in
            // After the stop the loop no longer reads the queue: answer here so nobody waits forever.
            if stopping.load(ordering: .acquiring) { return command }
            queue.append(command)
            return nil
        }
        if let refused { Self.refuse(refused) } else { wakeup.signal() }
    }

    func stop() {
        inbox.withLock { _ in stopping.store(true, ordering: .releasing) }
        wakeup.signal()
    }

    // MARK: The loop

    func run() {
        while !stopping.load(ordering: .acquiring) {
            for command in inbox.withLock({ queue -> [Command] in defer { queue = [] }; return queue }) {
                perform(command)
            }
            destroyEndedHandle()
            guard let current = handle, case let socket = library.socket(current), socket >= 0 else {
                waitForWakeup(timeout: -1)
                continue
            }
            var descriptors = [
                pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: socket, events: Int16(POLLIN) | pollReadHangUp | (library.wantWrite(current) ? Int16(POLLOUT) : 0),
                       revents: 0),
            ]
            let ready = poll(&descriptors, 2, millisecondsUntilKeepAlive())
            if ready < 0 {
                if errno != EINTR { usleep(1000) }  // ENOMEM: cannot wait properly; do not spin
                continue
            }
            if descriptors[0].revents != 0 { wakeup.drain() }
            let events = descriptors[1].revents
            if events != 0 { service(current, socket: socket, events: events) }
            guard handle == current, library.socket(current) >= 0 else { continue }
            check(library.loopMisc(current), current)
            if ready == 0 {
                // The keep-alive was due: libmosquitto pinged (or gave up), and counts from now.
                lastSent = Self.monotonicSeconds()
                lastReceived = lastSent
            }
        }
        dropHandle()
        failEverything(MQTTFailure(.notConnected, "the MQTT connection was closed (the daemon is stopping)"))
        for command in inbox.withLock({ queue -> [Command] in defer { queue = [] }; return queue }) { Self.refuse(command) }
        connectionEvents.finish()
        messages.finish()
    }

    /// Reads (which also drives a TLS handshake), then writes what waits.
    private func service(_ current: OpaquePointer, socket: Int32, events: Int16) {
        let closedByPeer = events & (Int16(POLLHUP) | Int16(POLLERR) | pollReadHangUp) != 0
        // Whatever the socket says: libmosquitto's read also moves a TLS handshake on, and reports
        // a closed or failed socket.
        check(library.loopRead(current, 1), current)
        if events & Int16(POLLIN) != 0 { lastReceived = Self.monotonicSeconds() }
        if handle == current, library.socket(current) == socket, library.wantWrite(current) {
            check(library.loopWrite(current, 1), current)
            lastSent = Self.monotonicSeconds()
        }
        // A peer that closes during a TLS handshake leaves libmosquitto waiting for a handshake
        // that never comes (it reports success): the socket would be ready forever.
        if closedByPeer, handle == current, phase == .connecting, library.socket(current) == socket {
            endAttempt(.connectFailed(MQTTFailure(.lost, "\(settings.broker) closed the connection before accepting it"
                                                  + hint(forCode: Int32(MOSQ_ERR_CONN_LOST.rawValue)))))
        }
    }

    private func waitForWakeup(timeout: Int32) {
        var descriptor = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, timeout)
        if result < 0 && errno != EINTR { usleep(1000) }
        if result > 0 { wakeup.drain() }
    }

    /// Until the keep-alive is due: the start of the second in which libmosquitto's own check
    /// (whole seconds) says so, plus a little so that check sees it.
    private func millisecondsUntilKeepAlive() -> Int32 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let due = min(lastSent, lastReceived) + settings.keepAlive
        let milliseconds = (due - Int(now.tv_sec)) * 1000 - Int(now.tv_nsec) / 1_000_000 + 20
        return Int32(clamping: max(milliseconds, 0))
    }

    private static func monotonicSeconds() -> Int {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int(now.tv_sec)
    }

    // MARK: Commands

    private func perform(_ command: Command) {
        switch command {
        case let .connect(options):
            startAttempt(options)
        case let .publish(message, continuation):
            publish(message, continuation)
        case let .subscribe(filters, continuation):
            subscribe(filters, continuation)
        case let .disconnect(continuation):
            // Before CONNACK there is no session to end cleanly: the attempt is dropped.
            guard let current = handle, phase == .connected else {
                dropHandle()
                continuation.resume()
                return
            }
            disconnectWaiters.append(continuation)
            phase = .disconnecting
            // Usually written at once, and the callback has ended the connection when this returns.
            let code = library.disconnect(current)
            lastSent = Self.monotonicSeconds()
            if code != success, handle == current { dropHandle() }
        }
    }

    private func startAttempt(_ options: MQTTConnectOptions) {
        dropHandle()
        lastLoggedError = nil
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let new = library.new(settings.clientID, true, context) else {
            connectionEvents.yield(.connectFailed(MQTTFailure(.rejected, "libmosquitto could not make a client: \(errnoText(errno))")))
            return
        }
        handle = new
        _ = library.intOption(new, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        library.connectCallbackSet(new, onConnect)
        library.disconnectCallbackSet(new, onDisconnect)
        library.publishCallbackSet(new, onPublish)
        library.subscribeCallbackSet(new, onSubscribe)
        library.messageCallbackSet(new, onMessage)
        library.logCallbackSet(new, onLog)
        var code = success
        if let username = settings.username {
            code = library.usernamePasswordSet(new, username, settings.password)
        }
        if code == success, let will = options.will {
            code = will.payload.withCString { payload in
                library.willSet(new, will.topic, Int32(strlen(payload)), payload, Int32(will.qos.rawValue), will.retain)
            }
        }
        if code == success {
            switch settings.tls {
            case .off: break
            case .systemCertificates: code = library.intOption(new, MOSQ_OPT_TLS_USE_OS_CERTS, 1)
            case let .caFile(path): code = library.tlsSet(new, path, nil, nil, nil, nil)
            }
        }
        guard code == success else {
            endAttempt(.connectFailed(MQTTFailure(.rejected, "cannot set up the connection to \(settings.broker): "
                                                  + "\(library.message(code))\(loggedReason)")))
            return
        }
        phase = .connecting
        // Blocks for the name lookup; the TCP connect and the TLS handshake go on in the loop.
        code = library.connectBindAsync(new, settings.host, Int32(settings.port), Int32(settings.keepAlive), nil)
        let reason = errno
        lastSent = Self.monotonicSeconds()
        lastReceived = lastSent
        if code != success, handle == new {
            endAttempt(.connectFailed(failure(forCode: code, errno: reason, connecting: true)))
        }
    }

    private func publish(_ message: MQTTMessage, _ continuation: CheckedContinuation<Result<Void, MQTTFailure>, Never>) {
        guard let current = handle, phase == .connected else {
            continuation.resume(returning: .failure(MQTTFailure(.notConnected, "not connected to \(settings.broker)")))
            return
        }
        var mid: Int32 = 0
        let bytes = Array(message.payload.utf8)
        let code = bytes.withUnsafeBytes { payload in
            library.publish(current, &mid, message.topic, Int32(clamping: payload.count), payload.baseAddress,
                            Int32(message.qos.rawValue), message.retain)
        }
        lastSent = Self.monotonicSeconds()
        guard code == success else {
            continuation.resume(returning: .failure(MQTTFailure(.rejected, "\(settings.broker) refused to publish to "
                                                                + "\(message.topic): \(library.message(code))")))
            return
        }
        if message.qos == .atMostOnce {
            continuation.resume(returning: .success(()))
        } else {
            publishes[mid] = continuation
        }
    }

    private func subscribe(_ filters: [String], _ continuation: CheckedContinuation<Result<Void, MQTTFailure>, Never>) {
        guard let current = handle, phase == .connected else {
            continuation.resume(returning: .failure(MQTTFailure(.notConnected, "not connected to \(settings.broker)")))
            return
        }
        guard !filters.isEmpty else {
            continuation.resume(returning: .success(()))
            return
        }
        let group = SubscribeGroup(filters: filters, continuation: continuation)
        for filter in filters {
            var mid: Int32 = 0
            let code = library.subscribe(current, &mid, filter, 1)
            guard code == success else {
                group.finish(.failure(MQTTFailure(.rejected, "cannot subscribe to \(filter): \(library.message(code))")))
                return
            }
            subscriptions[mid] = group
        }
        lastSent = Self.monotonicSeconds()
    }

    // MARK: Callbacks (on the loop's thread, inside libmosquitto calls)

    fileprivate func connected(code: Int32) {
        guard phase == .connecting else { return }
        if code == 0 {
            phase = .connected
            connectionEvents.yield(.connected)
        } else {
            // The broker refused (CONNACK ≠ 0) and closes the connection; the handle goes after this call.
            endAttempt(.connectFailed(MQTTFailure(.refused, "\(settings.broker) refused the connection: "
                                                  + "\(library.connackMessage(code))\(refusalHint(code))")))
        }
    }

    fileprivate func disconnected(code: Int32) {
        let reason = errno
        switch phase {
        case .idle:
            return
        case .connecting:
            endAttempt(.connectFailed(failure(forCode: code, errno: reason, connecting: true)))
        case .connected:
            endAttempt(.connectionLost(failure(forCode: code, errno: reason, connecting: false)))
        case .disconnecting:
            endAttempt(nil)
        }
    }

    fileprivate func published(mid: Int32) {
        publishes.removeValue(forKey: mid)?.resume(returning: .success(()))
    }

    fileprivate func subscribed(mid: Int32, granted: [Int32]) {
        guard let group = subscriptions.removeValue(forKey: mid) else { return }
        if granted.contains(0x80) {
            // 0x80: the broker refused this filter (an ACL, most often).
            group.finish(.failure(MQTTFailure(.rejected, "\(settings.broker) refused the subscription to "
                                              + "\(group.filters.joined(separator: ", ")) (not authorised for these topics?)")))
        } else {
            group.acknowledgedOne()
        }
    }

    fileprivate func received(_ message: mosquitto_message) {
        // A QoS 1 message was acknowledged (PUBACK written) before this callback.
        if message.qos > 0 { lastSent = Self.monotonicSeconds() }
        let size = Int(max(message.payloadlen, 0))
        var payload: [UInt8] = []
        if size <= MQTTInboundMessage.keptBytes, let bytes = message.payload {
            payload = Array(UnsafeRawBufferPointer(start: bytes, count: size))
        }
        let topic = message.topic.map { String(cString: $0) } ?? ""
        messages.yield(MQTTInboundMessage(topic: topic, payload: payload, size: size, retained: message.retain))
    }

    fileprivate func logged(level: Int32, _ text: String) {
        if level & Int32(MOSQ_LOG_ERR) != 0 { lastLoggedError = text }
    }

    // MARK: Ending

    /// A call returned an error: if it closed the connection without a callback saying so (a
    /// failed TLS handshake), the attempt ends here with that error.
    private func check(_ code: Int32, _ current: OpaquePointer) {
        guard code != success, handle == current, phase != .idle, library.socket(current) < 0 else { return }
        let reason = errno
        switch phase {
        case .connecting: endAttempt(.connectFailed(failure(forCode: code, errno: reason, connecting: true)))
        case .connected: endAttempt(.connectionLost(failure(forCode: code, errno: reason, connecting: false)))
        case .disconnecting, .idle: endAttempt(nil)
        }
    }

    /// The attempt or connection is over: say so (unless it ended as asked), fail what waited on
    /// it, and let the handle go once libmosquitto has returned.
    private func endAttempt(_ event: MQTTConnectionEvent?) {
        let failure: MQTTFailure
        switch event {
        case let .connectFailed(reason)?, let .connectionLost(reason)?: failure = reason
        default: failure = MQTTFailure(.notConnected, "disconnected from \(settings.broker)")
        }
        phase = .idle
        if let event { connectionEvents.yield(event) }
        failEverything(failure)
        // Destroying the handle inside one of its own callbacks would free it under libmosquitto:
        // the loop destroys it before its next poll instead.
        if let current = handle {
            destroyEndedHandle()
            endedHandle = current
        }
        handle = nil
    }

    /// A handle whose attempt ended inside a libmosquitto call: destroyed once that call returned.
    private var endedHandle: OpaquePointer?

    private func destroyEndedHandle() {
        if let ended = endedHandle {
            endedHandle = nil
            library.destroy(ended)
        }
    }

    private func dropHandle() {
        destroyEndedHandle()
        if let current = handle {
            handle = nil
            phase = .idle
            library.destroy(current)
        }
        failEverything(MQTTFailure(.notConnected, "the connection to \(settings.broker) was replaced"))
    }

    private func failEverything(_ failure: MQTTFailure) {
        let waiting = publishes.values
        publishes = [:]
        for continuation in waiting { continuation.resume(returning: .failure(failure)) }
        let groups = subscriptions.values
        subscriptions = [:]
        for group in groups { group.finish(.failure(failure)) }  // once per group: finish is idempotent
        let waiters = disconnectWaiters
        disconnectWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    private static func refuse(_ command: Command) {
        let failure = MQTTFailure(.notConnected, "the MQTT connection is closed (the daemon is stopping)")
        switch command {
        case .connect: break
        case let .publish(_, continuation), let .subscribe(_, continuation): continuation.resume(returning: .failure(failure))
        case let .disconnect(continuation): continuation.resume()
        }
    }

    // MARK: Messages

    private var loggedReason: String {
        lastLoggedError.map { " (\($0))" } ?? ""
    }

    private func failure(forCode code: Int32, errno reason: Int32, connecting: Bool) -> MQTTFailure {
        let broker = settings.broker
        switch code {
        case Int32(MOSQ_ERR_KEEPALIVE.rawValue):
            return MQTTFailure(.noAnswer, connecting
                ? "\(broker) accepted the connection but did not answer within the keep-alive (\(settings.keepAlive) s)"
                : "\(broker) stopped answering (no answer to a ping within the keep-alive, \(settings.keepAlive) s)")
        case Int32(MOSQ_ERR_ERRNO.rawValue):
            let text = errnoText(reason)
            let kind: MQTTFailure.Kind = connecting ? .unreachable : .lost
            if reason == ECONNREFUSED {
                return MQTTFailure(kind, "\(broker): connection refused (is the broker running and listening on port \(settings.port)?)")
            }
            return MQTTFailure(kind, "\(broker): \(text)\(hint(forCode: code))")
        case Int32(MOSQ_ERR_EAI.rawValue):
            return MQTTFailure(.unreachable, "cannot resolve \(settings.host): \(library.message(code)) "
                               + "(check [mqtt] host and the device's DNS)")
        case Int32(MOSQ_ERR_TLS.rawValue), Int32(MOSQ_ERR_TLS_HANDSHAKE.rawValue):
            return MQTTFailure(.tls, "TLS with \(broker) failed\(loggedReason)\(hint(forCode: code))")
        case Int32(MOSQ_ERR_CONN_LOST.rawValue):
            return connecting
                ? MQTTFailure(.lost, "\(broker) closed the connection before accepting it\(hint(forCode: code))")
                : MQTTFailure(.lost, "the connection to \(broker) was lost (the broker stopped, or the network went away)")
        default:
            return MQTTFailure(connecting ? .unreachable : .lost, "\(broker): \(library.message(code))\(loggedReason)")
        }
    }

    /// What a person can check when the broker closes or refuses before CONNACK.
    private func hint(forCode code: Int32) -> String {
        switch settings.tls {
        case .off:
            return code == Int32(MOSQ_ERR_CONN_LOST.rawValue) ? " (a TLS port? then set [mqtt] tls = true)" : ""
        case .systemCertificates, .caFile:
            let tlsFailed = code == Int32(MOSQ_ERR_TLS.rawValue) || code == Int32(MOSQ_ERR_TLS_HANDSHAKE.rawValue)
            // OpenSSL's "unexpected eof": the broker hung up mid-handshake, as a plain port does.
            if tlsFailed, lastLoggedError?.includes("unexpected eof") != true {
                return "; check that the broker's certificate is signed by the CA in [mqtt] ca_file (or the system's) "
                    + "and names \(settings.host)"
            }
            return " (not a TLS port? check [mqtt] port and tls)"
        }
    }

    private func refusalHint(_ code: Int32) -> String {
        switch code {
        // Mosquitto answers a wrong password with 5 (not authorised), others with 4.
        case 4, 5: "; check [mqtt] username and the password in password_file against the broker's users"
        case 2: "; the broker refuses [mqtt] client_id"
        default: ""
        }
    }
}

private let success = Int32(MOSQ_ERR_SUCCESS.rawValue)

/// Several filters subscribed together: one answer once the broker acknowledged all of them.
private final class SubscribeGroup {
    let filters: [String]
    private var remaining: Int
    private var continuation: CheckedContinuation<Result<Void, MQTTFailure>, Never>?

    init(filters: [String], continuation: CheckedContinuation<Result<Void, MQTTFailure>, Never>) {
        self.filters = filters
        remaining = filters.count
        self.continuation = continuation
    }

    func acknowledgedOne() {
        remaining -= 1
        if remaining == 0 { finish(.success(())) }
    }

    func finish(_ result: Result<Void, MQTTFailure>) {
        continuation?.resume(returning: result)
        continuation = nil
    }
}

// libmosquitto's callbacks: C function pointers, the loop passed as the userdata pointer.

private func loop(_ context: UnsafeMutableRawPointer?) -> ConnectionLoop? {
    context.map { Unmanaged<ConnectionLoop>.fromOpaque($0).takeUnretainedValue() }
}

private let onConnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    loop(context)?.connected(code: code)
}

private let onDisconnect: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    loop(context)?.disconnected(code: code)
}

private let onPublish: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, mid in
    loop(context)?.published(mid: mid)
}

private let onSubscribe: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
    _, context, mid, count, granted in
    let levels = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(max(count, 0)))) } ?? []
    loop(context)?.subscribed(mid: mid, granted: levels)
}

private let onMessage: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = {
    _, context, message in
    guard let message else { return }
    loop(context)?.received(message.pointee)
}

private let onLog: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?) -> Void = {
    _, context, level, text in
    guard let text else { return }
    loop(context)?.logged(level: level, String(cString: text))
}

/// POLLRDHUP (Linux): the peer closed its end. Glibc declares it only under _GNU_SOURCE.
private let pollReadHangUp: Int16 = 0x2000
