import CheckInModels
import CheckInStoreLive
import ControlProtocol
import DevServer
import DeviceAPI
import Foundation
import TestSupport
import XCTest

/// The real daemon uploading to the reference backend over loopback HTTP.
final class UplinkEndToEndTests: XCTestCase {
    static let deviceID = "e2e-device"
    static let token = "e2e-token-0123456789"

    /// A daemon whose `[uplink]` points at `url`, with its token file (mode 0600) in place.
    func makeDevice(url: String, token: String = UplinkEndToEndTests.token, extra: String = "") throws -> DaemonHarness {
        try DaemonHarness.uplinked(to: url, token: token, for: self, extra: extra)
    }

    /// Stores `count` check-ins in the daemon's database before it starts (a device that was offline).
    ///
    /// Every check-in is its own fsynced transaction, as on the device; on a busy disk 10,000 of them
    /// take a minute, so they are written on tmpfs (/dev/shm) when there is one and the closed file
    /// (checkpointed, no WAL left) is copied into place.
    private func prefill(_ device: DaemonHarness, count: Int) async throws -> [String] {
        let scratch = FileManager.default.fileExists(atPath: "/dev/shm")
            ? "/dev/shm/lifesignal-e2e-\(UUID().uuidString).sqlite" : device.storePath
        var ids: [String] = []
        do {
            let database = try await CheckInDatabase.open(path: scratch)
            let start = WallTime(secondsSinceEpoch: 1_795_000_000)
            for index in 0..<count {
                let at = DeviceInstant(wall: start + .seconds(index), uptime: .seconds(10 + index), bootID: "earlier-boot",
                                       wallClockSynchronized: true)
                ids.append(try await database.record(NewCheckIn(id: .random(), at: at, source: .button)).id.description)
            }
            await database.close()
        }
        if scratch != device.storePath {
            let target = URL(fileURLWithPath: device.storePath)
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            XCTAssertFalse(FileManager.default.fileExists(atPath: scratch + "-wal"), "the prefilled store was closed")
            try FileManager.default.copyItem(atPath: scratch, toPath: device.storePath)
            try FileManager.default.removeItem(atPath: scratch)
        }
        return ids
    }

    func testCheckInsMadeWhileTheBackendIsDownAreUploadedOnceItComesUp() throws {
        let port = try freeLoopbackPort()
        let device = try makeDevice(url: "http://127.0.0.1:\(port)")
        try device.start()
        var ids: [String] = []
        for _ in 0..<3 {
            ids.append(try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"])).id)
        }
        // The retry comes soon: the report asserted on is the one that showed the wait, not a
        // second one taken when the next attempt may already be under way.
        var waiting: QueueReport?
        try device.waitUntil("the upload has failed for want of a server and waits to retry") {
            waiting = try device.decode(QueueReport.self, device.ctl(["queue", "--json"]))
            return waiting?.uplink?.state == "waiting_to_retry"
        }
        let queue = try XCTUnwrap(waiting)
        XCTAssertEqual(queue.depth, 3)
        XCTAssertEqual(queue.oldestPending?.id, ids[0])
        XCTAssertEqual(queue.uplink?.lastResult, "transient_failure")
        XCTAssertNotNil(queue.uplink?.nextRetry)
        XCTAssertTrue(queue.uplink?.lastMessage?.contains("127.0.0.1:\(port)") == true, queue.uplink?.lastMessage ?? "")

        // The real dev server binary comes up on that port.
        let serverDirectory = device.directory.appendingPathComponent("server")
        try FileManager.default.createDirectory(at: serverDirectory, withIntermediateDirectories: true)
        let server = Process()
        server.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignal-devserver")
        server.arguments = ["--port", "\(port)", "--database", serverDirectory.appendingPathComponent("server.sqlite").path,
                            "--token", "\(Self.deviceID)=\(Self.token)"]
        server.standardOutput = FileHandle.nullDevice
        // Kept for the assertion below: under a sanitizer its report is the only clue to a bad exit.
        let serverLog = serverDirectory.appendingPathComponent("stderr.log")
        _ = FileManager.default.createFile(atPath: serverLog.path, contents: nil)
        server.standardError = try FileHandle(forWritingTo: serverLog)
        try server.run()
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }

        try device.waitUntil("the queue has drained") { try device.status().queueDepth == 0 }
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(history.map(\.uploaded), [true, true, true])
        let text = try device.ctl(["queue"]).standardOutput
        XCTAssertTrue(text.contains("0 check-ins waiting") && text.contains("up to date"), text)
        XCTAssertEqual(device.stop(), 0)

        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        XCTAssertEqual(server.terminationStatus, 0,
                       "the dev server stops cleanly on SIGTERM; its stderr:\n\((try? String(contentsOf: serverLog, encoding: .utf8)) ?? "")")
        let reader = try DevServer(DevServer.Options(databasePath: serverDirectory.appendingPathComponent("server.sqlite").path,
                                                     tokens: [Self.token: Self.deviceID]))
        defer { reader.stop() }
        XCTAssertEqual(try reader.storedCheckIns(device: Self.deviceID).map(\.checkIn.id), ids)
    }

    func testSIGKILLMidUploadThenRestartStoresEveryCheckInExactlyOnce() async throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token, faults: FaultUpdate(latencyMilliseconds: 150))
        defer { server.stop() }
        let device = try makeDevice(url: server.baseURL, extra: "batch_size = 100")
        let ids = try await prefill(device, count: 2_000)

        try device.start()
        try device.waitUntil("a few batches are stored") { server.stats.checkInBatches >= 3 }
        device.killHard()
        let storedBeforeKill = try server.storedCheckIns(device: Self.deviceID).count
        XCTAssertLessThan(storedBeforeKill, ids.count, "killed before the backlog was through")

        server.inject(FaultUpdate(latencyMilliseconds: 0))
        try device.start()
        try device.waitUntil("the queue has drained after the restart", timeout: 60) { try device.status().queueDepth == 0 }
        let stored = try server.storedCheckIns(device: Self.deviceID)
        XCTAssertEqual(stored.count, ids.count, "each check-in exactly once")
        XCTAssertEqual(Set(stored.map(\.checkIn.id)), Set(ids))
        XCTAssertLessThanOrEqual(stored.filter { $0.receipts > 1 }.count, 100,
                                 "at most the batch in flight at the kill was sent twice")
        _ = device.stop()
    }

    func testATenThousandCheckInBacklogDrainsInBatchesOf500WithBoundedMemory() async throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let device = try makeDevice(url: server.baseURL)
        let ids = try await prefill(device, count: 10_000)

        try device.start(environment: DaemonHarness.memoryBoundedEnvironment)
        try device.waitUntil("the backlog has drained", timeout: 120) { try device.status().queueDepth == 0 }
        let peak = try XCTUnwrap(device.peakResidentKiB(), "VmHWM of the daemon")
        let stats = server.stats
        XCTAssertEqual(stats.largestBatch, 500)
        XCTAssertEqual(stats.checkInBatches, 20)
        XCTAssertEqual(try server.storedCheckIns(device: Self.deviceID).map(\.checkIn.id), ids, "all, once, in order")
        print("10,000-row backlog: \(stats.checkInBatches) batches, daemon peak RSS \(peak) KiB")
        // A debug build holding one 500-row batch at a time (about 35 MiB); the bound catches growth
        // of tens of MiB, not the few MiB that holding all 10,000 rows would add.
        XCTAssertLessThan(peak, DaemonHarness.residentBoundKiB(plain: 96 * 1024), "peak resident memory while draining")
        _ = device.stop()
    }

    func testARefusedUploadShowsInStatusAndQueueWithTheServersMessageAndTheRowsStay() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let device = try makeDevice(url: server.baseURL, token: "revoked-token")
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("the upload is refused") { try device.status().uplink?.state == "stopped" }
        let status = try device.status()
        XCTAssertEqual(status.queueDepth, 1)
        XCTAssertEqual(status.uplink?.lastResult, "permanent_failure")
        XCTAssertNil(status.uplink?.nextRetry, "a permanent failure is not retried on a timer")
        let text = try device.ctl(["status"]).standardOutput
        XCTAssertTrue(text.contains("STOPPED") && text.contains("unknown bearer token"), text)
        XCTAssertTrue(device.log.contains("upload refused"), device.log)
        XCTAssertFalse(device.log.contains("revoked-token"), "the token is never logged")
        XCTAssertEqual(server.stats.requestsByOperation["POST /v1/check-ins"], 1, "no retry on a timer")
        _ = device.stop()
    }

    func testHeartbeatsAndHealthchecksPingsShowInStatusAndQueue() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        let device = try makeDevice(url: server.baseURL, extra: """
            heartbeat = "1s"
            [healthchecks]
            check_in_url = "\(server.baseURL)/ping/3f2a9c1e-0d6f-4b8e-9a51-2f4c8d7e6a10"
            heartbeat_url = "\(server.baseURL)/ping/\(HealthchecksProject.devPingKey)/device-heartbeat"
            heartbeat = "1h"
            """)
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("the check-in is pinged and two backend heartbeats arrived") {
            server.healthchecksPings.contains { $0.check == "3f2a9c1e-0d6f-4b8e-9a51-2f4c8d7e6a10" } && server.stats.heartbeats >= 2
        }
        XCTAssertEqual(server.healthchecksPings.filter { $0.check == "\(HealthchecksProject.devPingKey)/device-heartbeat" }.count, 1, "once at start, then hourly")
        let status = try device.status()
        XCTAssertNotNil(status.uplink?.heartbeat?.lastSuccess)
        XCTAssertEqual(status.uplink?.heartbeat?.periodSeconds, 1)
        XCTAssertEqual(status.healthchecks?.endpoint, "\(server.baseURL)/…6a10", "the ping URL is shown shortened")
        XCTAssertEqual(status.healthchecks?.heartbeat?.periodSeconds, 3600)
        let queue = try device.ctl(["queue"]).standardOutput
        XCTAssertTrue(queue.contains("0 check-ins waiting for their ping to the healthchecks check"), queue)
        XCTAssertFalse(device.log.contains("3f2a9c1e-0d6f"), "the ping URL is a secret")
        _ = device.stop()
    }

    func testSettingsSyncBothWaysAndTheNewerVersionWins() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        defer { server.stop() }
        try server.setSettings(DeviceSettings(intervalSeconds: 7200, reminderSeconds: 1800, version: 5), device: Self.deviceID)
        let device = try makeDevice(url: server.baseURL)  // its config says 1h / 10m: version 1 on the device
        try device.start()

        // The backend's version 5 is newer than the device's: the device takes it, deadline and all.
        try device.waitUntil("the backend's settings reach the device") {
            let settings = try device.decode(SettingsReport.self, device.ctl(["settings", "--json"]))
            return settings.intervalSeconds == 7200 && settings.reminderSeconds == 1800 && settings.version == 5
        }
        XCTAssertTrue(device.log.contains("settings from the backend applied"), device.log)

        // A change on the device (version 6) goes to the backend.
        try device.ctl(["settings", "set", "--interval", "3h"])
        try device.waitUntil("the device's change reaches the backend") {
            try server.settings(device: Self.deviceID) == DeviceSettings(intervalSeconds: 10_800, reminderSeconds: 1800, version: 6)
        }

        // The app changes them again (version 9); the next check-in brings them over.
        try server.setSettings(DeviceSettings(intervalSeconds: 14_400, reminderSeconds: 3600, version: 9), device: Self.deviceID)
        try device.ctl(["check-in"])
        try device.waitUntil("the newer backend settings are applied after a check-in") {
            let status = try device.status()
            return status.settings.intervalSeconds == 14_400 && status.settings.version == 9
                && (status.secondsLeft ?? 0) > 3 * 3600
        }

        // They survive a restart with the unedited config file.
        XCTAssertEqual(device.stop(), 0)
        try device.start()
        let settings = try device.decode(SettingsReport.self, device.ctl(["settings", "--json"]))
        XCTAssertEqual(settings.intervalSeconds, 14_400)
        XCTAssertEqual(settings.version, 9)
        _ = device.stop()
    }

    func testATokenFileOthersCanReadStopsTheDaemonWithEXCONFIG() throws {
        let device = try makeDevice(url: "https://backend.invalid")
        let config = try String(contentsOfFile: device.configPath, encoding: .utf8)
        let tokenPath = try XCTUnwrap(config.split(separator: "\n").first { $0.hasPrefix("token_file") }?
            .split(separator: "\"").dropFirst().first.map(String.init))
        XCTAssertEqual(chmod(tokenPath, 0o644), 0)
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", device.configPath]
        process.environment = DaemonHarness.baseEnvironment(home: device.directory.path)
        let err = Pipe()
        process.standardError = err
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 78)
        XCTAssertTrue(message.contains(tokenPath) && message.contains("0644"), message)
        XCTAssertFalse(message.contains(Self.token), "the token is never printed")
    }
}

extension DaemonHarness {
    /// The running daemon's peak resident set (VmHWM) in KiB.
    func peakResidentKiB() -> Int? {
        guard let daemon else { return nil }
        guard let status = try? String(contentsOfFile: "/proc/\(daemon.processIdentifier)/status", encoding: .utf8) else { return nil }
        return status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
}
