import Glibc

/// A real Mosquitto broker (Debian's `mosquitto`) on 127.0.0.1, on ports of its own, with its
/// files in a temporary directory: an anonymous listener, a password listener (`username` /
/// `password`), and with `tls` a TLS listener whose self-signed certificate (`certificatePath`)
/// names 127.0.0.1. Retained messages persist across `stop()` and `start()`, as on a real broker.
///
/// It stops by itself: a small shell keeps the broker and reads the test process's end of a pipe;
/// when the test lets it go or dies, the pipe closes and the shell stops the broker.
public final class MosquittoBroker {
    public static let username = "lifesignal"
    public static let password = "correct horse battery"

    public let directory: TemporaryDirectory
    /// Anonymous clients welcome.
    public let port: UInt16
    /// Only `username` with `password`.
    public let passwordPort: UInt16
    /// TLS (anonymous), when made with `tls: true`.
    public let tlsPort: UInt16?
    private var keeper: (pid: pid_t, pipe: Int32)?

    public init(tls: Bool = false) throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-mosquitto")
        port = try freeLoopbackPort()
        passwordPort = try freeLoopbackPort()
        tlsPort = tls ? try freeLoopbackPort() : nil
        _ = try directory.makeDirectory("data")
        try run("/usr/bin/mosquitto_passwd", ["-b", "-c", directory.file("passwords"), Self.username, Self.password])
        if tls {
            try run("/usr/bin/openssl", [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", directory.file("key.pem"), "-out", certificatePath,
            ])
        }
        var config = """
            per_listener_settings true
            persistence true
            persistence_location \(directory.file("data"))/
            log_dest file \(directory.file("mosquitto.log"))
            log_type all

            listener \(port) 127.0.0.1
            allow_anonymous true

            listener \(passwordPort) 127.0.0.1
            allow_anonymous false
            password_file \(directory.file("passwords"))

            """
        if let tlsPort {
            config += """
                listener \(tlsPort) 127.0.0.1
                allow_anonymous true
                certfile \(certificatePath)
                keyfile \(directory.file("key.pem"))

                """
        }
        // As root the broker would switch to user mosquitto, who cannot write in this directory.
        if getuid() == 0 { config = "user root\n" + config }
        _ = try directory.write("mosquitto.conf", config, mode: 0o600)
        try start()
    }

    deinit {
        stop()
    }

    /// The PEM certificate of the TLS listener (a CA file that trusts it).
    public var certificatePath: String { directory.file("cert.pem") }

    /// The broker's log so far, for a failure message.
    public var log: String {
        (try? directory.read(directory.file("mosquitto.log"))).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }

    /// Starts the broker (again, on the same ports and files) and waits until every listener accepts.
    public func start() throws {
        stop()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw TestFailure("pipe: \(String(cString: strerror(errno)))") }
        // Neither end may leak into other children (a daemon holding the write end would keep the broker up).
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let script = """
            /usr/sbin/mosquitto -c "$1" </dev/null >>"$2" 2>&1 &
            broker=$!
            echo "$broker" >"$3"
            read -r _
            kill -TERM "$broker" 2>/dev/null
            wait "$broker"
            """
        do {
            let pid = try spawn("/bin/sh", ["-c", script, "mosquitto-keeper", directory.file("mosquitto.conf"),
                                            directory.file("mosquitto.out"), directory.file("mosquitto.pid")], stdin: ends[0])
            close(ends[0])
            keeper = (pid, ends[1])
        } catch {
            close(ends[0])
            close(ends[1])
            throw error
        }
        for listener in [port, passwordPort] + (tlsPort.map { [$0] } ?? []) {
            try waitUntilBlocking("mosquitto accepts connections on 127.0.0.1:\(listener)", details: { self.log }) {
                loopbackAccepts(port: listener)
            }
        }
    }

    /// Stops the broker as its service would (SIGTERM: it saves retained messages, sends no wills
    /// for clients that are still connected … it closes them) and waits for it. Idempotent.
    public func stop() {
        guard let keeper else { return }
        self.keeper = nil
        close(keeper.pipe)
        var status: Int32 = 0
        while waitpid(keeper.pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// Kills the broker with SIGKILL (a crash): nothing is saved, connections just drop. `start()`
    /// brings it back.
    public func kill() throws {
        let text = String(decoding: try directory.read(directory.file("mosquitto.pid")), as: UTF8.self)
        guard let pid = pid_t(text.filter(\.isNumber)) else { throw TestFailure("no broker pid in \(text)") }
        Glibc.kill(pid, SIGKILL)
        try waitUntilBlocking("the killed broker is gone") { !loopbackAccepts(port: port) }
        stop()
    }

    private func run(_ executable: String, _ arguments: [String]) throws {
        let pid = try spawn(executable, arguments, stdin: nil)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else {
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) failed (status \(status)); "
                              + "see \(directory.file("mosquitto.out"))")
        }
    }

    private func spawn(_ executable: String, _ arguments: [String], stdin: Int32?) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let stdin {
            posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 1, directory.file("mosquitto.out"), O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let environment: [String] = ["PATH=/usr/sbin:/usr/bin:/bin"]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        // The broker and its keeper must hear SIGTERM and SIGCHLD: a test thread may have them
        // blocked or ignored, and a spawned process inherits both.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t(), allSignals = sigset_t()
        sigemptyset(&noSignals)
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure("posix_spawn \(executable): \(String(cString: strerror(result)))") }
        return pid
    }
}

/// Whether something accepts TCP connections on 127.0.0.1:`port` right now.
public func loopbackAccepts(port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}
