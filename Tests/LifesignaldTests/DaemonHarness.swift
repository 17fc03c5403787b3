import ControlProtocol
import Foundation
import TestSupport
import XCTest

/// Runs the real `lifesignald` and `lifesignalctl` binaries (built next to this test bundle) in a
/// temporary directory of their own, with simulated GPIO and seconds-long intervals.
final class DaemonHarness {
    /// Where everything of this daemon lives; removed with the harness.
    let scratch: TemporaryDirectory
    var directory: URL { URL(fileURLWithPath: scratch.path) }
    let configPath: String
    let socketPath: String
    let storePath: String
    private(set) var daemon: Process?
    private var daemonLog: FileHandle?

    static var binaries: URL {
        // The xctest bundle lives in the build products folder, next to the executables.
        URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent()
    }

    /// `grace`: the last chance before overdue; none unless a test is about it, so "overdue" comes
    /// at the deadline as it did before there was one. `checkIn`: more `[check_in]` keys.
    init(interval: String = "6s", reminder: String = "3s", grace: String = "0s", checkIn: String = "", developer: String = "",
         config extra: String = "", logLevel: String = "debug", storePath customStorePath: String? = nil) throws {
        scratch = try TemporaryDirectory(prefix: "lifesignal-e2e")
        // mkdtemp makes it 0700; like a home directory, others may pass through it (tests of what
        // another user can reach start from there).
        chmod(scratch.path, 0o755)
        let directory = URL(fileURLWithPath: scratch.path)
        socketPath = directory.appendingPathComponent("run/control.sock").path
        storePath = customStorePath ?? directory.appendingPathComponent("state/lifesignal.sqlite").path
        configPath = directory.appendingPathComponent("lifesignald.toml").path
        let config = """
            [check_in]
            interval = "\(interval)"
            reminder = "\(reminder)"
            grace = "\(grace)"
            \(checkIn)

            [developer]
            short_intervals = true
            \(developer)

            [store]
            path = "\(storePath)"

            [control]
            socket = "\(socketPath)"

            [simulator]
            terminal = "off"

            [feedback]
            acknowledgement = "400ms"

            [log]
            level = "\(logLevel)"
            \(extra)
            """
        try config.write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// A minimal environment, plus the sanitizer runtime options of this test run (so a sanitized
    /// daemon reads the same suppressions as the tests; scripts/test-sanitizers sets them).
    static func baseEnvironment(home: String) -> [String: String] {
        var environment = ["PATH": "/usr/bin:/bin", "HOME": home]
        for name in ["TSAN_OPTIONS", "ASAN_OPTIONS", "LSAN_OPTIONS", "LIFESIGNAL_SANITIZER"] {
            environment[name] = ProcessInfo.processInfo.environment[name]
        }
        return environment
    }

    deinit {
        if let daemon, daemon.isRunning { kill(daemon.processIdentifier, SIGKILL) }
    }

    /// Starts the daemon and waits until its control socket answers.
    func start(environment extra: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) throws {
        try start(environment: extra, waitingWith: { (try? self.status()) != nil }, file: file, line: line)
    }

    /// Starts the daemon and waits until `isReady` (e.g. a direct socket request) says it answers.
    func start(environment extra: [String: String] = [:], waitingWith isReady: @escaping () -> Bool,
               file: StaticString = #filePath, line: UInt = #line) throws {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", configPath]
        process.environment = Self.baseEnvironment(home: directory.path).merging(extra) { $1 }
        let logURL = directory.appendingPathComponent("daemon-\(Date().timeIntervalSince1970).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        let log = try FileHandle(forWritingTo: logURL)
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        try process.run()
        daemon = process
        daemonLog = log
        try waitUntil("the daemon answers on its socket", file: file, line: line) {
            if let daemon = self.daemon, !daemon.isRunning {
                throw HarnessError("lifesignald exited (\(daemon.terminationStatus)) before it answered:\n\(self.log)")
            }
            return isReady()
        }
    }

    /// Waits for a daemon that was killed from elsewhere (e.g. by a client thread) to be gone.
    func reap() {
        guard let daemon else { return }
        daemon.waitUntilExit()
        self.daemon = nil
    }

    /// Kills the daemon with SIGKILL: no shutdown code runs at all (a power cut, for the store).
    func killHard() {
        guard let daemon else { return }
        kill(daemon.processIdentifier, SIGKILL)
        daemon.waitUntilExit()
        self.daemon = nil
    }

    /// Stops the daemon with SIGTERM and returns its exit code.
    func stop() -> Int32 {
        guard let daemon else { return -1 }
        kill(daemon.processIdentifier, SIGTERM)
        daemon.waitUntilExit()
        self.daemon = nil
        return daemon.terminationStatus
    }

    var log: String {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return files.filter { $0.hasPrefix("daemon-") }.sorted()
            .compactMap { try? String(contentsOfFile: directory.appendingPathComponent($0).path, encoding: .utf8) }
            .joined(separator: "\n---\n")
    }

    struct CommandResult {
        var exitCode: Int32
        var standardOutput: String
        var standardError: String
    }

    /// Runs lifesignalctl with `arguments` (the socket is added, except for commands that read the
    /// config instead: `addsSocket` false).
    @discardableResult
    func ctl(_ arguments: [String], socket: String? = nil, addsSocket: Bool = true) throws -> CommandResult {
        let process = Process()
        process.executableURL = Self.binaries.appendingPathComponent("lifesignalctl")
        process.arguments = arguments + (addsSocket ? ["--socket", socket ?? socketPath] : [])
        process.environment = Self.baseEnvironment(home: directory.path)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CommandResult(exitCode: process.terminationStatus,
                             standardOutput: String(decoding: outData, as: UTF8.self),
                             standardError: String(decoding: errData, as: UTF8.self))
    }

    func decode<T: Decodable>(_ type: T.Type, _ result: CommandResult) throws -> T {
        guard result.exitCode == 0 else {
            throw HarnessError("lifesignalctl failed (\(result.exitCode)): \(result.standardError)")
        }
        return try JSONDecoder().decode(type, from: Data(result.standardOutput.utf8))
    }

    func status() throws -> StatusReport {
        try decode(StatusReport.self, ctl(["status", "--json"]))
    }

    /// Polls `condition` (every 20 ms, up to `timeout`, longer under a sanitizer): waiting for the
    /// daemon, never timing it. A timeout fails with the daemon's log.
    func waitUntil(_ what: String, timeout: TimeInterval = 15, file: StaticString = #filePath, line: UInt = #line,
                   _ condition: () throws -> Bool) throws {
        try waitUntilBlocking(what, timeout: .milliseconds(Int64(timeout * 1000)), file: file, line: line,
                              details: { "--- daemon log ---\n\(self.log)" }, condition)
    }
}

extension DaemonHarness {
    /// The sanitizer of this test run (LIFESIGNAL_SANITIZER, set by scripts/test-sanitizers), if any.
    static let sanitizer = Sanitizer.current

    /// AddressSanitizer's quarantine of freed blocks for a daemon whose memory a test bounds. By
    /// default it holds up to 256 MiB, filling with every allocation however little is live, so
    /// the daemon's peak would measure ASan's quarantine instead of the daemon.
    static let addressSanitizerQuarantineMiB = 16

    /// The environment for a daemon whose resident memory a test bounds: under AddressSanitizer the
    /// quarantine is capped (it still catches a use of a recently freed block).
    static var memoryBoundedEnvironment: [String: String] {
        guard sanitizer == "address" else { return [:] }
        let options = ProcessInfo.processInfo.environment["ASAN_OPTIONS"].map { $0 + ":" } ?? ""
        return ["ASAN_OPTIONS": options + "quarantine_size_mb=\(addressSanitizerQuarantineMiB)"]
    }

    /// A resident-memory bound (KiB) set for the plain build, for this run. AddressSanitizer's shadow
    /// memory, redzones and allocator metadata about double a debug daemon's peak (10,000-row backlog:
    /// 34 MiB plain, 67 MiB with no quarantine), and the capped quarantine with its redzones adds about
    /// twice its size (97 MiB with 16 MiB). ThreadSanitizer stays within the plain bound (79 MiB).
    static func residentBoundKiB(plain bound: Int) -> Int {
        guard sanitizer == "address" else { return bound }
        return bound * 2 + 2 * addressSanitizerQuarantineMiB * 1024
    }
}

struct HarnessError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
