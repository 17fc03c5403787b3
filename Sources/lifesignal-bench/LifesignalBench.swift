// lifesignal-bench: footprint and speed of the release daemon (see BENCHMARKS.md and scripts/bench).
import ControlProtocol
import ControlSocket
import Glibc
import LinuxIO
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

@main
struct LifesignalBench {
    /// The same executors as lifesignald, so the in-process press measurement runs like the daemon.
    typealias DefaultExecutorFactory = SingleThreadExecutorFactory

    static func main() async {
        do {
            let options = try Options(CommandLine.arguments.dropFirst(), ownFolder: ownFolder())
            try await Bench(options: options).run()
        } catch {
            var line = "lifesignal-bench: \(error)\n"
            line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(1)
        }
    }

    static func ownFolder() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return "." }
        let path = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

@MainActor
final class Bench {
    let options: Options
    let directory: String
    var daemonPath: String { options.binaries + "/lifesignald" }
    let executorName = SingleThreadExecutorFactory.usesDispatch ? "Dispatch (LIFESIGNAL_EXECUTOR=dispatch)" : "SingleThreadExecutor"

    init(options: Options) throws {
        self.options = options
        var template = Array((options.workDirectory + "/lifesignal-bench-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw SystemError.current("mkdtemp", options.workDirectory)
        }
        directory = String(cString: made)
    }

    func run() async throws {
        defer { removeTree(directory) }
        guard access(daemonPath, X_OK) == 0 else {
            throw BenchError("no lifesignald at \(daemonPath); build it first (scripts/bench does)")
        }
        print("lifesignal-bench — \(daemonPath)")
        print("executor: \(executorName); work dir: \(directory); \(cpuCount()) CPUs; load \(loadAverage())")
        if options.phases.contains("presses") || options.phases.contains("check-ins") {
            print("disk reference, 4 KiB append + fdatasync in the work dir (grows the file, unlike a WAL commit into a reused WAL): \(try DiskBaseline.measure(in: directory).summary)")
            print("disk reference, 4 × 4 KiB written in place + fdatasync (a WAL commit's shape, no SQLite): \(try DiskBaseline.measureInPlace(in: directory).summary)")
        }
        print("")
        if options.phases.contains("ready") || options.phases.contains("idle") || options.phases.contains("check-ins") {
            try daemonPhases()
        }
        if options.phases.contains("presses") {
            try await PressBenchmark(directory: directory + "/presses", count: options.presses, extraConfig: try extraConfig(),
                                     floor: options.phases.contains("floor"),
                                     reference: options.referencePython.flatMap { python in
                                         options.referenceScript.map { PressBenchmark.Reference(python: python, script: $0) }
                                     }).run()
        }
        if options.phases.contains("backlog") {
            try await BacklogBenchmark(directory: directory + "/backlog", binaries: options.binaries,
                                       count: options.backlog, batchSize: options.batchSize,
                                       statusInterval: options.statusIntervalMilliseconds.map { .milliseconds($0) }).run()
        }
        if options.phases.contains("uplink") {
            try UplinkMemory(directory: directory + "/uplink", binaries: options.binaries).run()
        }
        if options.phases.contains("idle-connections") {
            try idleConnections()
        }
        if options.phases.contains("mqtt") {
            try mqttPhase()
        }
        if options.phases.contains("sizes") {
            binarySizes()
        }
    }

    /// `--extra-config`'s text, appended to the configuration the device runs with.
    func extraConfig() throws -> String {
        try options.extraConfig.map { path in
            guard case let .success(bytes) = readRegularFile(path) else { throw BenchError("cannot read \(path)") }
            return String(decoding: bytes, as: UTF8.self)
        } ?? ""
    }

    // MARK: The real daemon

    func daemonPhases() throws {
        let home = directory + "/daemon"
        let config = try DaemonConfig.write(in: home, extra: extraConfig())
        let runs = options.phases.contains("ready") ? options.readyRuns : 1
        var readyTimes: [Duration] = []
        var daemon: Child?
        for run in 0..<runs {
            let (child, ready) = try startDaemon(config: config, log: home + "/daemon.log")
            readyTimes.append(ready)
            if run < runs - 1 {
                let code = child.stop()
                guard code == 0 else { throw BenchError("lifesignald exited with \(code) on SIGTERM; see \(home)/daemon.log") }
            } else {
                daemon = child
            }
        }
        guard let daemon else { return }
        if options.phases.contains("ready") {
            print("## Start to ready (exec until the control socket answers a status request)")
            print("first start, new store: \(milliseconds(readyTimes[0]))")
            if readyTimes.count > 1 {
                var restarts = Sample()
                for time in readyTimes.dropFirst() { restarts.add(time) }
                print("restarts, existing store: median \(milliseconds(restarts.percentile(50))), max \(milliseconds(restarts.maximum)) (n = \(restarts.count))")
            }
            print("")
        }

        let rssAtReady = ProcFS.residentKilobytes(daemon.pid) ?? -1
        pause(.seconds(1))
        let rssAfterStart = ProcFS.residentKilobytes(daemon.pid) ?? -1
        print("## Resident memory (VmRSS)")
        print("at ready: \(megabytes(kilobytes: rssAtReady)); 1 s later: \(megabytes(kilobytes: rssAfterStart)) "
              + "(\(ProcFS.residentBreakdown(daemon.pid))); threads: \(ProcFS.threadSwitches(daemon.pid).count)")
        let mappings = ProcFS.residentByMapping(daemon.pid).filter { $0.kilobytes >= 64 }
            .map { "\($0.name) \(megabytes(kilobytes: $0.kilobytes))" }
        print("by mapping: \(mappings.joined(separator: ", "))")
        print("target: ≤ 10 MiB with no uplink: \(rssAfterStart <= 10 * 1024 ? "met" : "not met")")
        floorMemory()

        // A check-in puts the device in a steady phase (checked in: green on, next change in 23 h).
        _ = try request(.checkIn, config: config)
        // The acknowledgement pattern ends after 200 ms. The control handler's 10 s answer timeout
        // stays scheduled after the answer (a cancelled Task.sleep still fires, as a no-op, at its
        // deadline), and who is told of a missed check-in is logged once, 30 s after the start
        // (RespondersFeature's `announceAfter`): wait both out so the window shows the steady
        // state, not those one-off wake-ups.
        pause(.seconds(31))

        if options.phases.contains("idle") {
            idle(daemon, seconds: options.idleSeconds, clock: clockState())
        }
        if options.phases.contains("check-ins") {
            try checkIns(daemon, config: config, count: options.checkIns)
        }
        let code = daemon.stop()
        print("SIGTERM: exit code \(code)")
        print("")
        if options.phases.contains("idle") {
            try idleWithSynchronisedClock(config: config)
        }
    }

    /// Whether this machine's clock counts as synchronised, as the daemon decides it.
    func clockState() -> String {
        WallClockSynchronization.system.isSynchronized()
            ? "the clock is synchronised" : "this machine's clock is not synchronised (no NTP client)"
    }

    /// The idle window again on a daemon that finds systemd-timesyncd's "synchronised" flag, as on
    /// a board with network: the flag is made on a private /run in a mount namespace of its own
    /// (unshare, as root), nothing on the machine changes. Without root it says so and skips.
    func idleWithSynchronisedClock(config: DaemonConfig) throws {
        guard geteuid() == 0, access("/usr/bin/unshare", X_OK) == 0 else {
            print("## Idle with a synchronised clock: skipped (needs root and unshare for a private /run)")
            print("")
            return
        }
        let script = "mount -t tmpfs -o mode=0755 tmpfs /run && mkdir -p /run/systemd/timesync "
            + "&& touch /run/systemd/timesync/synchronized && exec \"$@\""
        let log = directory + "/daemon-synchronised.log"
        let child = try Child(executable: "/usr/bin/unshare",
                              arguments: ["--mount", "--propagation", "private", "/bin/sh", "-c", script, "sh",
                                          daemonPath, "--config", config.path],
                              environment: daemonEnvironment(), log: log)
        let start = monotonic()
        while (try? request(.status, config: config)) == nil {
            guard monotonic() - start < .seconds(10) else { throw BenchError("the namespaced lifesignald did not answer; see \(log)") }
            pause(.milliseconds(1))
        }
        _ = try request(.checkIn, config: config)
        pause(.seconds(31))  // the acknowledgement, the answer timeout and the responders' line, as above
        idle(child, seconds: options.idleSeconds, clock: "the clock synchronised by systemd-timesyncd's flag (private /run)")
        let code = child.stop()
        guard code == 0 else { throw BenchError("the namespaced lifesignald exited with \(code); see \(log)") }
    }

    func startDaemon(config: DaemonConfig, log: String) throws -> (Child, Duration) {
        let environment = daemonEnvironment()
        let status = ControlCoding.encode(ControlRequest(.status))
        let start = monotonic()
        let child = try Child(executable: daemonPath, arguments: ["--config", config.path], environment: environment, log: log)
        while monotonic() - start < .seconds(10) {
            if (try? ControlClient.send(status, to: config.socket, timeout: .seconds(2))) != nil {
                return (child, monotonic() - start)
            }
            pause(.microseconds(200))
        }
        child.stop(SIGKILL)
        throw BenchError("lifesignald did not answer on \(config.socket) within 10 s; see \(log)")
    }

    func request(_ command: ControlRequest.Command, config: DaemonConfig) throws -> ControlResponse {
        let line = try ControlClient.send(ControlCoding.encode(ControlRequest(command)), to: config.socket, timeout: .seconds(10))
        let response = try ControlCoding.decode(ControlResponse.self, from: line).get()
        guard response.ok else { throw BenchError("\(command.rawValue) failed: \(response.error ?? line)") }
        return response
    }

    func idle(_ daemon: Child, seconds: Int, clock: String) {
        print("")
        print("## Idle, steady phase (checked in, green LED on), \(seconds) s; \(clock)")
        let switchesBefore = ProcFS.threadSwitches(daemon.pid)
        let writtenBefore = ProcFS.writeBytes(daemon.pid) ?? 0
        pause(.seconds(seconds))
        let switchesAfter = ProcFS.threadSwitches(daemon.pid)
        let writtenAfter = ProcFS.writeBytes(daemon.pid) ?? 0

        var total = 0
        var perThread: [String] = []
        for thread in switchesAfter {
            let before = switchesBefore.first { $0.tid == thread.tid }?.switches ?? 0
            let delta = thread.switches - before
            total += delta
            perThread.append("\(thread.name)[\(thread.tid)] \(delta)")
        }
        let gone = Set(switchesBefore.map(\.tid)).subtracting(switchesAfter.map(\.tid))
        let perMinute = Double(total) * 60 / Double(seconds)
        print("wake-ups (context switches, all threads): \(total) in \(seconds) s = \(format(perMinute)) per minute")
        print("target: 0 per idle hour apart from phase boundaries and configured heartbeats (none fall in this window): "
              + "\(total == 0 ? "met" : "\(total * 3600 / seconds) per hour scaled")")
        print("per thread: \(perThread.joined(separator: ", "))\(gone.isEmpty ? "" : "; \(gone.count) thread(s) ended meanwhile")")
        let written = writtenAfter - writtenBefore
        print("bytes written while idle: \(written) in \(seconds) s = \(written * 3600 / seconds) per idle hour (scaled)")
        print("")
    }

    func checkIns(_ daemon: Child, config: DaemonConfig, count: Int) throws {
        print("## \(count) check-ins over the control socket, one after another")
        let line = ControlCoding.encode(ControlRequest(.checkIn))
        let writtenBefore = ProcFS.writeBytes(daemon.pid) ?? 0
        var roundTrips = Sample()
        print("resident memory before: \(memoryLine(daemon))")
        for index in 0..<count {
            let start = monotonic()
            let answer = try ControlClient.send(line, to: config.socket, timeout: .seconds(10))
            roundTrips.add(monotonic() - start)
            guard case let .success(response) = ControlCoding.decode(ControlResponse.self, from: answer),
                  response.ok, response.checkIn != nil else {
                throw BenchError("check-in \(index + 1) was not acknowledged: \(answer)")
            }
            if (index + 1) % options.memoryEvery == 0 {
                print("after \(index + 1) check-ins: \(memoryLine(daemon))")
            }
        }
        let written = (ProcFS.writeBytes(daemon.pid) ?? 0) - writtenBefore
        print("request → durable store → answer (client side, incl. socket and JSON): \(roundTrips.summary)")
        print("bytes written: \(written) = \(written / count) per check-in")
        pause(.seconds(1))
        let rss = ProcFS.residentKilobytes(daemon.pid) ?? -1
        print("resident memory after \(count) check-ins: \(megabytes(kilobytes: rss)) (\(ProcFS.residentBreakdown(daemon.pid)))")
        let history = try request(.status, config: config)
        print("queue depth reported: \(history.status?.queueDepth ?? -1)")
        // Each check-in request leaves its 10 s answer timeout scheduled (cancelled, but a
        // cancelled sleep is only dropped at its deadline); see the memory once those have passed.
        pause(.seconds(11))
        let settled = ProcFS.residentKilobytes(daemon.pid) ?? -1
        print("resident memory 12 s later: \(megabytes(kilobytes: settled)) (\(ProcFS.residentBreakdown(daemon.pid)))")
        print("")
    }

    /// VmRSS with its anonymous and file-backed parts, for the growth curve.
    func memoryLine(_ daemon: Child) -> String {
        "\(megabytes(kilobytes: ProcFS.residentKilobytes(daemon.pid) ?? -1)) (\(ProcFS.residentBreakdown(daemon.pid)))"
    }

    /// The floor: lifesignal-floor, a static Swift program that holds a SQLite store and nothing
    /// else, linked like the daemon: what no change to the daemon's own code can get below.
    func floorMemory() {
        let path = options.binaries + "/lifesignal-floor"
        let log = directory + "/floor.log"
        guard access(path, X_OK) == 0,
              let floor = try? Child(executable: path, arguments: [directory + "/floor.sqlite"], environment: [], log: log)
        else {
            print("floor: lifesignal-floor is not built (scripts/bench builds it)")
            return
        }
        defer { floor.stop() }
        let start = monotonic()
        while monotonic() - start < .seconds(10), !(ProcFS.read(log) ?? "").contains("ready") { pause(.milliseconds(5)) }
        pause(.seconds(1))
        print("floor (lifesignal-floor: static Swift runtime, libc, SQLite with one row, nothing else; linked like the daemon): "
              + "\(megabytes(kilobytes: ProcFS.residentKilobytes(floor.pid) ?? -1)) (\(ProcFS.residentBreakdown(floor.pid)))")
    }

    // MARK: Sizes

    func binarySizes() {
        print("## Binary sizes (release, --static-swift-stdlib; target: lifesignald ≤ 10 MiB stripped)")
        for name in ["lifesignald", "lifesignalctl", "lifesignal-floor"] {
            let path = options.binaries + "/" + name
            var info = stat()
            guard stat(path, &info) == 0 else {
                print("\(name): not built")
                continue
            }
            var line = "\(name): \(megabytes(kilobytes: Int(info.st_size) / 1024)) as built"
            let stripped = directory + "/\(name).stripped"
            // As scripts/build-deb ships it: without symbols and unwind tables.
            if runQuietly("/usr/bin/strip", ["--remove-section=.eh_frame", "-o", stripped, path]), stat(stripped, &info) == 0 {
                line += ", \(megabytes(kilobytes: Int(info.st_size) / 1024)) stripped"
            }
            print(line)
        }
        print("")
    }

    // MARK: Helpers

    func runQuietly(_ executable: String, _ arguments: [String]) -> Bool {
        guard access(executable, X_OK) == 0,
              let child = try? Child(executable: executable, arguments: arguments, environment: [], log: "/dev/null")
        else { return false }
        return child.wait() == 0
    }

    func removeTree(_ path: String) {
        _ = runQuietly("/bin/rm", ["-rf", path])
    }

    func cpuCount() -> Int { Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))) }

    func loadAverage() -> String {
        (ProcFS.read("/proc/loadavg") ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }

}
