import CheckInModels
import CheckInStoreLive
import ControlProtocol
import ControlSocket
import Glibc
import LinuxIO
import SQLiteDatabase

/// A device that was offline for a long time: `count` check-ins queued in its store, then the real
/// lifesignald uploads them to the real lifesignal-devserver on loopback. Measures the time from
/// the daemon's exec until its queue is empty, and the peak resident memory (VmHWM) of the daemon
/// and of the dev server, each on its own; then checks on the server's file that every row arrived
/// exactly once.
struct BacklogBenchmark {
    let directory: String
    let binaries: String
    let count: Int
    let batchSize: Int
    /// How often the queue depth is asked for from the start (nil: only once the daemon's log shows
    /// every row acknowledged). Each answer counts the pending rows, O(queue) in SQLite, so polling
    /// every 20 ms, as this did first, took a large share of the daemon's one thread (and its
    /// SQLite page cache) away from the upload it measures.
    let statusInterval: Duration?

    static let deviceID = "bench-device"
    static let token = "bench-token-0123456789abcdef"

    func run() async throws {
        let polling = statusInterval.map { "queue depth asked every \(milliseconds($0))" }
            ?? "queue depth asked once the daemon's log shows all acknowledged"
        print("## Upload a \(count)-row backlog to lifesignal-devserver on loopback (batch_size \(batchSize), \(polling))")
        for path in [directory, directory + "/server"] where mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw SystemError.current("mkdir", path)
        }
        let tokenPath = directory + "/token"
        try writeFile(tokenPath, Self.token + "\n", mode: 0o600)
        let port = try freeLoopbackPort()
        let config = try DaemonConfig.write(in: directory, extra: """

            [uplink]
            url = "http://127.0.0.1:\(port)"
            token_file = "\(tokenPath)"
            batch_size = \(batchSize)
            timeout = "30s"
            retry_max = "1s"
            """)

        let fillStart = monotonic()
        try await fillQueue(config.store)
        print("queue written straight into the store (one transaction per 10,000 rows): \(milliseconds(monotonic() - fillStart))")

        let serverDatabase = directory + "/server/server.sqlite"
        let server = try Child(
            executable: binaries + "/lifesignal-devserver",
            arguments: ["--port", "\(port)", "--database", serverDatabase, "--token", "\(Self.deviceID)=\(Self.token)"],
            environment: ["PATH=/usr/bin:/bin"], log: directory + "/server.log")
        try waitForListener(port: port, server: server, log: directory + "/server.log")

        let status = ControlCoding.encode(ControlRequest(.status))
        let serverBefore = ProcFS.cpuTime(server.pid)
        let serverWritesBefore = ProcFS.writeBytes(server.pid) ?? 0
        let start = monotonic()
        let daemon = try Child(executable: binaries + "/lifesignald", arguments: ["--config", config.path],
                               environment: daemonEnvironment(), log: directory + "/daemon.log")
        var drained: Duration?
        var depth = -1
        // Until the daemon's log shows every row acknowledged, only its log is read (unless asked
        // to poll): a status request counts the whole queue, which the measurement would then pay.
        let log = LogFollower(path: directory + "/daemon.log")
        var acknowledged = 0
        while monotonic() - start < .seconds(300) {
            if statusInterval == nil && acknowledged < count {
                acknowledged += log.newLines().reduce(0) { $0 + Self.acknowledgedCount(inLogLine: $1) }
                if acknowledged < count {
                    pause(.milliseconds(20))
                    continue
                }
            }
            if let line = try? ControlClient.send(status, to: config.socket, timeout: .seconds(10)),
               case let .success(response) = ControlCoding.decode(ControlResponse.self, from: line),
               let reported = response.status?.queueDepth {
                depth = reported
                if reported == 0 {
                    drained = monotonic() - start
                    break
                }
            }
            pause(statusInterval ?? .milliseconds(20))
        }
        let daemonPeak = ProcFS.field("VmHWM", in: ProcFS.read("/proc/\(daemon.pid)/status") ?? "") ?? -1
        let daemonNow = ProcFS.residentKilobytes(daemon.pid) ?? -1
        let serverPeak = ProcFS.field("VmHWM", in: ProcFS.read("/proc/\(server.pid)/status") ?? "") ?? -1
        let daemonCPU = ProcFS.cpuTime(daemon.pid), serverCPU = ProcFS.cpuTime(server.pid)
        let daemonWrites = ProcFS.writeBytes(daemon.pid) ?? -1
        let serverWrites = (ProcFS.writeBytes(server.pid) ?? 0) - serverWritesBefore
        let daemonCode = daemon.stop()
        let serverCode = server.stop()
        guard let drained else {
            throw BenchError("the queue did not drain within 300 s (depth \(depth)); see \(directory)/daemon.log")
        }
        let perSecond = Double(count) / (Double(drained.components.seconds) + Double(drained.components.attoseconds) / 1e18)
        print("exec of lifesignald → queue empty: \(milliseconds(drained)) (\(Int(perSecond)) check-ins/s)")
        // Which side costs what: CPU seconds each used from the daemon's exec to the empty queue.
        if let daemonCPU, let serverCPU, let serverBefore {
            print("CPU time: lifesignald \(milliseconds(daemonCPU.user)) user + \(milliseconds(daemonCPU.system)) system; "
                  + "lifesignal-devserver \(milliseconds(serverCPU.user - serverBefore.user)) user + "
                  + "\(milliseconds(serverCPU.system - serverBefore.system)) system")
        }
        print("written to disk: lifesignald \(megabytes(kilobytes: daemonWrites / 1024)), "
              + "lifesignal-devserver \(megabytes(kilobytes: serverWrites / 1024))")
        print("peak resident memory (VmHWM): lifesignald \(megabytes(kilobytes: daemonPeak)) (\(megabytes(kilobytes: daemonNow)) after the drain), "
              + "lifesignal-devserver \(megabytes(kilobytes: serverPeak))")
        let (rows, receipts) = try serverCounts(serverDatabase)
        print("server stored \(rows) check-ins, \(receipts) receipts (\(rows == count && receipts == count ? "each exactly once" : "NOT each exactly once"))")
        print("SIGTERM: lifesignald exit code \(daemonCode), lifesignal-devserver \(serverCode)")
        print("")
    }

    /// Writes the backlog through the store's own API, 10,000 rows per transaction (a transaction
    /// per row, as the device writes them, would take 100,000 fsyncs).
    private func fillQueue(_ path: String) async throws {
        let database = try await CheckInDatabase.open(path: path)
        let start = WallTime(secondsSinceEpoch: 1_795_000_000)
        var written = 0
        while written < count {
            let chunk = (written..<min(written + 10_000, count)).map { index in
                NewCheckIn(id: .random(), at: DeviceInstant(wall: start + .seconds(index), uptime: .seconds(10 + index),
                                                            bootID: "earlier-boot", wallClockSynchronized: true),
                           source: .button)
            }
            try await database.record(all: chunk)
            written += chunk.count
        }
        await database.close()  // before the daemon opens it
    }

    /// The `acknowledged=N` of the uploader's "uploaded check-ins" log line, 0 for other lines.
    static func acknowledgedCount(inLogLine line: Substring) -> Int {
        guard line.contains("uploaded check-ins"), let range = line.firstRange(of: " acknowledged=") else { return 0 }
        return Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }

    private func serverCounts(_ path: String) throws -> (rows: Int, receipts: Int) {
        let connection = try Connection(path: path, mode: .readOnly)
        let select = try connection.prepare("SELECT count(*), coalesce(sum(receipts), 0) FROM check_ins")
        _ = try select.step()
        return (Int(try select.int64(at: 0)), Int(try select.int64(at: 1)))
    }

}

/// Waits until something accepts connections on the loopback `port` (a server just started).
func waitForListener(port: UInt16, server: Child, log: String) throws {
    let start = monotonic()
    while monotonic() - start < .seconds(10) {
        if connectLoopback(port: port) { return }
        pause(.milliseconds(5))
    }
    server.stop(SIGKILL)
    throw BenchError("the server did not listen on port \(port) within 10 s; see \(log)")
}

func writeFile(_ path: String, _ text: String, mode: mode_t) throws {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw SystemError.current("open", path) }
    defer { close(descriptor) }
    var text = text
    let written = text.withUTF8 { write(descriptor, $0.baseAddress, $0.count) }
    guard written == text.utf8.count else { throw SystemError.current("write", path) }
}

private func loopbackAddress(port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    address.sin_port = port.bigEndian
    return address
}

/// A port nothing listens on right now (the kernel's pick for a socket bound and closed again).
func freeLoopbackPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0 }
    }
    guard bound else { throw BenchError("could not find a free loopback port") }
    return UInt16(bigEndian: address.sin_port)
}

func connectLoopback(port: UInt16) -> Bool {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = loopbackAddress(port: port)
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}

/// Reads the lines appended to a file since the last call (the daemon's log, as it is written).
final class LogFollower {
    private let path: String
    private var offset = 0
    private var partial = ""

    init(path: String) {
        self.path = path
    }

    func newLines() -> [Substring] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return [] }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(offset)) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
            offset += count
        }
        let text = partial + String(decoding: bytes, as: UTF8.self)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        partial = String(lines.removeLast())  // a line still being written, or ""
        return lines
    }
}
