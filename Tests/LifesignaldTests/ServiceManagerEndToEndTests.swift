import ControlProtocol
import Foundation
import Glibc
import XCTest

/// The real daemon under a stand-in for systemd: a `$NOTIFY_SOCKET` datagram socket that records
/// what lifesignald says (READY, STATUS, WATCHDOG, STOPPING), and `lifesignalctl doctor` beside it.
final class ServiceManagerEndToEndTests: XCTestCase {
    func testReadyOnlyOnceServingStatusWatchdogAndStopping() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let notify = try DatagramInbox(path: device.directory.appendingPathComponent("notify").path)
        // WATCHDOG_USEC of 0.4 s: pings every 0.2 s, so a few arrive while the test runs.
        try device.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000"])

        let ready = try notify.next { $0.contains("READY=1") }
        XCTAssertTrue(ready.contains("\nSTATUS="), ready)
        XCTAssertFalse(ready.contains("upload queue"), "an offline device has nothing to upload: \(ready)")
        // READY came after the socket was serving: it answers now without waiting.
        XCTAssertNoThrow(try device.status())
        // Once the stored history is loaded, the status line follows the phase (it may already
        // have been loaded when READY was sent).
        if !ready.contains("STATUS=never checked in") {
            _ = try notify.next { $0.hasPrefix("STATUS=never checked in") }
        }

        _ = try notify.next { $0 == "WATCHDOG=1" }
        _ = try notify.next { $0 == "WATCHDOG=1" }

        try device.ctl(["check-in"])
        _ = try notify.next { $0.hasPrefix("STATUS=") && $0.contains("deadline in") }

        XCTAssertEqual(device.stop(), 0)
        _ = try notify.next { $0.contains("STOPPING=1") }
    }

    func testNoWatchdogPingsWhenTheWatchdogBelongsToAnotherProcess() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let notify = try DatagramInbox(path: device.directory.appendingPathComponent("notify").path)
        try device.start(environment: ["NOTIFY_SOCKET": notify.path, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"])
        _ = try notify.next { $0.contains("READY=1") }
        XCTAssertEqual(device.stop(), 0)
        let rest = try notify.drainUntil { $0.contains("STOPPING=1") }
        XCTAssertFalse(rest.contains("WATCHDOG=1"), "\(rest)")
    }

    /// journald files a stderr line by its `<N>` prefix, and a line without one at info: the
    /// reason the service did not start must be under `journalctl -p err`, every line of it.
    func testUnderTheJournalAConfigErrorIsFiledAtErrorPriorityLineByLine() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "2h")
        try "[check_in]\ninterval = \"1h\"\nreminder = \"2h\"\n\n[button]\ndebounce = \"5s\"\n"
            .write(toFile: device.configPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", device.configPath]
        process.environment = DaemonHarness.baseEnvironment(home: device.directory.path).merging(["JOURNAL_STREAM": "8:1234"]) { $1 }
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 78)
        let lines = message.split(separator: "\n")
        XCTAssertGreaterThan(lines.count, 1, "both mistakes, one per line: \(message)")
        XCTAssertTrue(message.contains("reminder") && message.contains("debounce"), message)
        for line in lines { XCTAssertTrue(line.hasPrefix("<3>"), "not filed as an error: \(line)") }
    }

    func testADaemonWhoseStoreCannotOpenStaysUpAndSaysWhyInItsStatus() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let notify = try DatagramInbox(path: device.directory.appendingPathComponent("notify").path)
        // A directory where the store file should be: the store cannot be opened. The daemon stays
        // up showing the fault and retrying (it used to exit 73, leaving the LEDs dark).
        try FileManager.default.createDirectory(atPath: device.storePath, withIntermediateDirectories: true)
        try device.start(environment: ["NOTIFY_SOCKET": notify.path])
        // The store is probed before READY=1, so the fault may already be in its status line.
        let ready = try notify.next { $0.contains("READY=1") }
        let status = ready.contains("\nSTATUS=fault") ? ready : try notify.next { $0.hasPrefix("STATUS=fault") }
        XCTAssertTrue(status.contains(device.storePath), status)
        XCTAssertEqual(try device.status().indicator, "fault")
        XCTAssertEqual(device.stop(), 0)
    }

    func testADaemonThatCannotStartSaysWhyInItsStatus() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let notify = try DatagramInbox(path: device.directory.appendingPathComponent("notify").path)
        // A plain file where the control socket should be: the daemon cannot listen (exit 71).
        try FileManager.default.createDirectory(atPath: (device.socketPath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try "not a socket".write(toFile: device.socketPath, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", device.configPath]
        process.environment = DaemonHarness.baseEnvironment(home: device.directory.path).merging(["NOTIFY_SOCKET": notify.path]) { $1 }
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let messages = try notify.drainUntil { $0.hasPrefix("STATUS=failed to start") }
        XCTAssertFalse(messages.contains { $0.contains("READY=1") }, "\(messages)")
        XCTAssertTrue(messages.last?.contains("not a socket") == true, "\(messages)")
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 71)
    }

    func testDoctorFindsTheRunningDaemonAndAHealthyStore() throws {
        // A check that tells someone of a missed check-in: without one, doctor finds a problem.
        let server = try makeServer(device: "doctor-device", token: "doctor-token-0123")
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [healthchecks]
            check_in_url = "\(server.baseURL)/ping/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
            """)
        try device.start()
        try device.ctl(["check-in"])
        let result = try device.ctl(["doctor", "--config", device.configPath])
        XCTAssertEqual(result.exitCode, 0, result.standardOutput + result.standardError)
        XCTAssertTrue(result.standardOutput.contains("ok      daemon: answers on"), result.standardOutput)
        XCTAssertTrue(result.standardOutput.contains("integrity_check ok"), result.standardOutput)
        _ = device.stop()

        let stopped = try device.ctl(["doctor", "--config", device.configPath])
        XCTAssertEqual(stopped.exitCode, 1, "a daemon that does not answer is a problem")
        XCTAssertTrue(stopped.standardOutput.contains("PROBLEM daemon"), stopped.standardOutput)
    }
}

/// A bound `SOCK_DGRAM` Unix socket that plays systemd's notify socket.
final class DatagramInbox {
    let path: String
    private let descriptor: Int32

    init(path: String) throws {
        self.path = path
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw HarnessError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0 else { throw HarnessError("bind \(path): errno \(errno)") }
        // Bounds how long a test waits for a message that never comes; not a timing assertion.
        var timeout = timeval(tv_sec: 15, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(descriptor) }

    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw HarnessError("no notification on \(path) (errno \(errno))") }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }

    /// Skips datagrams until one matches; returns it.
    func next(_ matches: (String) -> Bool) throws -> String {
        try drainUntil(matches).last ?? ""
    }

    /// Every datagram up to and including the first that matches. Gives up after 15 s even while
    /// other datagrams (watchdog pings) keep arriving.
    func drainUntil(_ matches: (String) -> Bool) throws -> [String] {
        var seen: [String] = []
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let message = try receive()
            seen.append(message)
            if matches(message) { return seen }
        }
        throw HarnessError("no matching notification on \(path); received: \(seen.suffix(5))")
    }
}

/// `lifesignalctl config check` as an operator runs it: exit codes and messages.
final class ConfigCheckCommandTests: XCTestCase {
    func run(_ arguments: [String]) throws -> (code: Int32, output: String, errors: String) {
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignalctl")
        process.arguments = arguments
        process.environment = DaemonHarness.baseEnvironment(home: NSTemporaryDirectory())
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, output, errors)
    }

    func testAValidConfigExitsZeroAndAnInvalidOneExits78WithFileLineAndKey() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let valid = try run(["config", "check", "--config", device.configPath])
        XCTAssertEqual(valid.code, 0, valid.errors)
        XCTAssertTrue(valid.output.contains("configuration is valid"), valid.output)

        let broken = device.directory.appendingPathComponent("broken.toml").path
        try "[check_in]\ninterval = \"1h\"\nreminder = \"2h\"\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let invalid = try run(["config", "check", "--config", broken])
        XCTAssertEqual(invalid.code, 78)
        XCTAssertTrue(invalid.errors.contains("\(broken):3"), invalid.errors)
        XCTAssertTrue(invalid.errors.contains("reminder"), invalid.errors)
    }
}
