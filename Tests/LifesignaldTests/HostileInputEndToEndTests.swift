import CheckInModels
import CheckInStoreLive
import ControlProtocol
import ControlSocket
import Foundation
import XCTest

/// The real daemon and CLI against input a mistaken or hostile user gives them: each gets a clear
/// error naming what is wrong, never a silent default, a false "OK" or a hang.
final class HostileInputEndToEndTests: XCTestCase {
    /// One raw request line straight to the daemon, as another client than lifesignalctl would send it.
    private func raw(_ request: ControlRequest, _ device: DaemonHarness) throws -> ControlResponse {
        let line = try ControlClient.send(ControlCoding.encode(request), to: device.socketPath, timeout: .seconds(10))
        return try ControlCoding.decode(ControlResponse.self, from: line).get()
    }

    private func assertNoRawControlCharacters(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertFalse(text.unicodeScalars.contains { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) },
                       "raw control characters in: \(text.debugDescription)", file: file, line: line)
    }

    func testSimPressWithAHoldThatIsNotADurationIsRefusedOnBothEnds() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()

        // It used to become a 150 ms press: a real check-in, exit 0.
        let cli = try device.ctl(["sim", "press", "--hold", "garbage"])
        XCTAssertEqual(cli.exitCode, 64, cli.standardError)
        XCTAssertTrue(cli.standardError.contains("--hold \"garbage\" is not a duration"), cli.standardError)

        let daemon = try raw(ControlRequest(.simPress, hold: "garbage"), device)
        XCTAssertFalse(daemon.ok)
        XCTAssertEqual(daemon.error, "hold \"garbage\" is not a duration: it must start with a whole number, "
                       + "e.g. 150ms, 4s, 1h30m")
        XCTAssertEqual(try raw(ControlRequest(.simPress, hold: "2h"), device).error,
                       "hold 2h is out of range: hold the button from 1ms to 1m")

        XCTAssertNil(try device.status().lastCheckIn, "no press happened")
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history, [])
    }

    func testDurationsWithARepeatedOrMisorderedUnitAreRefused() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()

        let cli = try device.ctl(["settings", "set", "--interval", "12h12h"])
        XCTAssertEqual(cli.exitCode, 64, cli.standardError)
        XCTAssertTrue(cli.standardError.contains("the unit h appears twice"), cli.standardError)

        let daemon = try raw(ControlRequest(.setSettings, interval: "30m1h"), device)
        XCTAssertFalse(daemon.ok)
        XCTAssertEqual(daemon.error, "interval \"30m1h\" is not a duration: h comes after m; write the units largest "
                       + "first (d, h, m, s, ms), e.g. 1h30m")
        XCTAssertEqual(try device.status().settings.interval, "1h", "nothing changed")
    }

    func testControlCharactersAreNeverEchoedRaw() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try device.start()
        let hostile = "\u{1B}[2J\u{1B}]0;owned\u{07}\u{9B}31m"

        let cli = try device.ctl(["settings", "set", "--interval", hostile])
        XCTAssertNotEqual(cli.exitCode, 0)
        assertNoRawControlCharacters(cli.standardError)
        XCTAssertTrue(cli.standardError.contains("\\u001B[2J"), cli.standardError)

        let daemon = try raw(ControlRequest(.setSettings, interval: hostile), device)
        XCTAssertFalse(daemon.ok)
        assertNoRawControlCharacters(daemon.error ?? "")

        let socket = try device.ctl(["status"], socket: device.socketPath + "\u{1B}[31m")
        XCTAssertEqual(socket.exitCode, 69)
        assertNoRawControlCharacters(socket.standardError)
    }

    func testHistoryLimitErrorsSayWhatIsWrongWithTheValue() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let negative = try device.ctl(["history", "--limit", "-5"])
        XCTAssertEqual(negative.exitCode, 64)
        XCTAssertTrue(negative.standardError.contains("--limit must be between 1 and 10000, not -5"), negative.standardError)
        XCTAssertFalse(negative.standardError.contains("Missing value"), negative.standardError)
    }

    func testASocketPathThatIsNotASocketIsNamedAsSuch() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let result = try device.ctl(["status"], socket: "/etc/passwd")
        XCTAssertEqual(result.exitCode, 69)
        XCTAssertEqual(result.standardError, "lifesignalctl: /etc/passwd is not a socket but a regular file: give the "
                       + "path of lifesignald's control socket (lifesignalctl --socket PATH)\n")
    }

    /// Both ends allow 10,000 rows; the answer used to stop at 1 MiB (about 5,400 rows), exit 69.
    func testTheLargestHistoryBothEndsAllowIsAnswered() async throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        try await prefill(device.storePath, count: 10_000)
        try device.start()

        let result = try device.ctl(["history", "--limit", "10000", "--json"])
        XCTAssertEqual(result.exitCode, 0, result.standardError)
        let history = try device.decode([CheckInReport].self, result)
        XCTAssertEqual(history.count, 10_000)
    }

    /// Writes `count` check-ins into a new store at `storePath` (on /dev/shm first where there is
    /// one: 10,000 durable commits to a disk would take most of the test's time).
    private func prefill(_ storePath: String, count: Int) async throws {
        try FileManager.default.createDirectory(atPath: (storePath as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        let scratch = FileManager.default.fileExists(atPath: "/dev/shm")
            ? "/dev/shm/lifesignal-e2e-\(UUID().uuidString).sqlite" : storePath
        do {
            let database = try await CheckInDatabase.open(path: scratch)
            let start = WallTime(secondsSinceEpoch: 1_795_000_000)
            // Ids and boot ids as long as real ones: the answer's size is what is tested.
            let bootID = "0f3c2a9e-5b7d-4e21-9c8a-1d2e3f4a5b6c"
            for index in 0..<count {
                let at = DeviceInstant(wall: start + .seconds(index), uptime: .seconds(10 + index), bootID: bootID,
                                       wallClockSynchronized: true)
                _ = try await database.record(NewCheckIn(id: .random(), at: at, source: .button))
            }
            // Closing checkpoints the write-ahead log into the file that is copied.
            await database.close()
        }
        if scratch != storePath {
            try FileManager.default.copyItem(atPath: scratch, toPath: storePath)
            try FileManager.default.removeItem(atPath: scratch)
        }
    }

    func testAConfigFileThatIsAFIFOIsRefusedNotWaitedOn() throws {
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        let fifo = device.directory.appendingPathComponent("fifo.toml").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", fifo, "--check-config"]
        process.environment = DaemonHarness.baseEnvironment(home: device.directory.path)
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let exited = expectation(description: "lifesignald exits")
        DispatchQueue.global().async {
            process.waitUntilExit()
            exited.fulfill()
        }
        if XCTWaiter().wait(for: [exited], timeout: 15) != .completed {
            // It waits for a writer: give it one so that it ends, and fail.
            if let writer = FileHandle(forWritingAtPath: fifo) { try? writer.close() }
            XCTFail("lifesignald waited on the FIFO for 15 s")
            process.waitUntilExit()
        }
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertEqual(process.terminationStatus, 78, message)
        XCTAssertTrue(message.contains("it is a FIFO (named pipe), not a regular file"), message)
    }
}

/// Another local user who runs a server on the path the victim's lifesignalctl uses.
final class FakeServerEndToEndTests: XCTestCase {
    func testACheckInAnsweredByAnotherUsersServerIsNotBelieved() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to run the fake server as another user") }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { throw XCTSkip("no setpriv") }
        let device = try DaemonHarness(interval: "1h", reminder: "10m")
        // A world-writable, sticky folder like /tmp, where "nobody" gets to the victim's path first.
        let shared = device.directory.appendingPathComponent("tmp").path
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false)
        XCTAssertEqual(chmod(shared, 0o1777), 0)
        XCTAssertEqual(chmod(device.directory.path, 0o755), 0)
        // The other user must be able to reach the folder (a private $TMPDIR would stop them).
        var ancestor = (device.directory.path as NSString).deletingLastPathComponent
        while ancestor != "/" && !ancestor.isEmpty {
            var info = stat()
            guard stat(ancestor, &info) == 0, info.st_mode & S_IXOTH != 0 else {
                throw XCTSkip("\(ancestor) cannot be entered by other users")
            }
            ancestor = (ancestor as NSString).deletingLastPathComponent
        }
        let socket = shared + "/lifesignal-root/control.sock"
        // The attacker's server is a lifesignald of their own (its own store, answering honestly
        // for it): all the victim's lifesignalctl can tell it by is who runs it.
        let binary = shared + "/fake-lifesignald"
        try FileManager.default.copyItem(atPath: DaemonHarness.binaries.appendingPathComponent("lifesignald").path,
                                         toPath: binary)
        let config = shared + "/fake.toml"
        try """
            [store]
            path = "\(shared)/fake-state/fake.sqlite"
            [control]
            socket = "\(socket)"
            [simulator]
            terminal = "off"
            """.write(toFile: config, atomically: false, encoding: .utf8)
        chmod(config, 0o644)
        let fake = Process()
        fake.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        fake.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", binary, "--config", config]
        fake.environment = DaemonHarness.baseEnvironment(home: shared)
        let log = Pipe()
        fake.standardOutput = log
        fake.standardError = log
        try fake.run()
        defer {
            fake.terminate()
            fake.waitUntilExit()
        }
        try device.waitUntil("the fake server listens") {
            guard fake.isRunning else { throw HarnessError("the fake server exited (\(fake.terminationStatus))") }
            return Self.accepts(socket)
        }

        let result = try device.ctl(["check-in"], socket: socket)
        XCTAssertEqual(result.exitCode, 69, "stdout: \(result.standardOutput)\nstderr: \(result.standardError)")
        XCTAssertFalse(result.standardOutput.contains("Checked in"), result.standardOutput)
        XCTAssertTrue(result.standardError.contains("runs as uid 65534"), result.standardError)
    }

    /// Whether something listens on `path` (a bare connect, no request).
    static func accepts(_ path: String) -> Bool {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
    }
}
