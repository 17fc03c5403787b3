import ControlProtocol
import DevServer
import DeviceAPI
import Foundation
import TestSupport
import XCTest

/// The real daemon and the reference backend's healthchecks over loopback HTTP, as a family
/// would set it up: an API key, and the device makes and keeps its own checks. A long press
/// reaches the alert check as one `fail`, also across a SIGKILL during delivery; the checks
/// follow the settings however they change; a bad key, a wrong URL and a server error are said
/// plainly, and no check-in is lost.
final class HealthchecksEndToEndTests: XCTestCase {
    static let deviceID = "hc-device"
    static let token = "hc-token-0123456789"

    private func makeDevice(_ server: DevServer, key: String = HealthchecksProject.devReadWriteKey, uplink: Bool = false,
                            extra: String = "") throws -> DaemonHarness {
        let keyPath = try tokenFile(key)
        let backend = uplink ? try uplinkSection(to: server.baseURL, token: Self.token) : ""
        return try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [button]
            long_press = "1s"

            [alert]
            cancel_window = "3s"
            delivered_display = "1m"

            [healthchecks]
            api_key_file = "\(keyPath)"
            api_url = "\(server.baseURL)"
            retry_max = "1s"
            timeout = "5s"
            \(extra)
            \(backend)
            """)
    }

    private func check(_ server: DevServer, _ role: String) -> DevCheck? {
        server.healthchecksChecks.first { $0.slug == "lifesignal-\(role)" }
    }

    private func fails(_ server: DevServer) -> [RecordedPing] {
        server.healthchecksPings.filter { $0.kind == "fail" }
    }

    private func longPress(_ device: DaemonHarness) throws -> StatusReport {
        try device.decode(StatusReport.self, device.ctl(["sim", "press", "--hold", "2500ms", "--json"]))
    }

    func testTheDeviceMakesItsThreeChecksAndALongPressReachesTheAlertCheckAsOneFail() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server)
        try device.start()
        try device.waitUntil("the device made its checks") { self.server(server, hasChecks: ["check-in", "heartbeat", "alert"]) }
        let checkIn = try XCTUnwrap(check(server, "check-in"))
        XCTAssertEqual(checkIn.timeout, 50 * 60, "late when the device turns amber: interval − reminder")
        XCTAssertEqual(checkIn.grace, 10 * 60, "down when the device shows overdue: the reminder after that")
        XCTAssertEqual(checkIn.channels, "*", "every integration of the project (the family's phone) is told")
        XCTAssertEqual(check(server, "heartbeat")?.timeout, 15 * 60)

        XCTAssertEqual(try longPress(device).alert?.state, "cancel_window")
        try device.waitUntil("the alert check took the alert") { try device.status().alert?.state == "delivered" }
        XCTAssertEqual(try device.status().indicator, "alert_delivered")
        let fail = try XCTUnwrap(fails(server).first)
        XCTAssertEqual(fails(server).count, 1)
        XCTAssertEqual(fail.check, check(server, "alert")?.uuid)
        XCTAssertNotNil(fail.rid, "the alert's id goes along")
        XCTAssertTrue(fail.body.contains("LifeSignal HELP ALERT"), fail.body)
        XCTAssertEqual(fail.userAgent, "lifesignald/\(DeviceSoftware.version)")
        XCTAssertEqual(check(server, "alert")?.notifications, ["down"], "the family is told once")

        // A check-in is pinged to the check-in check (and is not an alert).
        _ = try device.ctl(["check-in"])
        try device.waitUntil("the check-in was pinged") { self.check(server, "check-in")?.status == "up" }
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        try device.waitUntil("history says it was pinged") {
            try device.decode([CheckInReport].self, device.ctl(["history", "--json"])).first?.deliveries
                == [DeliveryReport(target: "healthchecks", state: "pinged")]
        }
        XCTAssertEqual(history.count, 1)
        let text = try device.ctl(["history"]).standardOutput
        XCTAssertFalse(text.contains("queued"), "nothing is queued for a backend that is not there: \(text)")
        XCTAssertEqual(device.stop(), 0)
    }

    func testAHelpAlertKilledDuringDeliveryReachesTheCheckExactlyOnceAfterTheRestart() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server)
        try device.start()
        try device.waitUntil("the device made its checks") { self.server(server, hasChecks: ["check-in", "heartbeat", "alert"]) }
        let alertCheck = try XCTUnwrap(check(server, "alert")?.uuid)
        // The server holds the fail for a while before taking it: the daemon dies meanwhile.
        let failOperation = "POST /ping/\(alertCheck)/fail"
        server.inject(FaultUpdate(schedule: [Fault(.delay, delayMilliseconds: 1500, operation: failOperation)]))

        _ = try longPress(device)
        try device.waitUntil("the fail is on its way") { server.stats.requestsByOperation[failOperation] == 1 }
        device.killHard()
        try device.waitUntil("the server took the fail after the daemon died") { self.fails(server).count == 1 }

        try device.start()
        try device.waitUntil("the restarted daemon knows the alert was taken") { try device.status().alert?.state == "delivered" }
        XCTAssertEqual(fails(server).count, 1, "exactly once: the restarted daemon asked the check before sending again")
        XCTAssertEqual(server.stats.requestsByOperation[failOperation], 1)
        XCTAssertEqual(check(server, "alert")?.notifications, ["down"])
        XCTAssertEqual(device.stop(), 0)
    }

    func testAPressInTheCancelWindowSendsNothing() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server)
        try device.start()
        try device.waitUntil("the device made its checks") { self.server(server, hasChecks: ["check-in", "heartbeat", "alert"]) }

        XCTAssertEqual(try longPress(device).alert?.state, "cancel_window")
        let cancelled = try device.decode(StatusReport.self, device.ctl(["sim", "press", "--hold", "150ms", "--json"]))
        XCTAssertEqual(cancelled.alert?.state, "idle")
        // A second request for help, made after the cancel: its window ends after the first one's
        // would have, and alerts leave in order, so once it is delivered the first would have been too.
        XCTAssertEqual(try longPress(device).alert?.state, "cancel_window")
        try device.waitUntil("the second alert was delivered") { try device.status().alert?.state == "delivered" }
        XCTAssertEqual(fails(server).count, 1, "only the alert that was not cancelled")
        XCTAssertEqual(try device.decode([CheckInReport].self, device.ctl(["history", "--json"])), [],
                       "the cancelling press is not a check-in")
        XCTAssertTrue(device.log.contains("help alert cancelled"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    func testTheCheckInChecksTimeoutAndGraceFollowTheSettingsFromTheCLITheConfigAndTheBackend() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server, uplink: true)
        try device.start()
        func inStep(_ interval: Int64, _ reminder: Int64, _ how: String) throws {
            try device.waitUntil("the check follows the settings from \(how)") {
                guard let check = self.check(server, "check-in") else { return false }
                return check.timeout == interval - reminder && check.grace == reminder
            }
        }
        try inStep(3600, 600, "the config at the start")

        try device.ctl(["settings", "set", "--interval", "2h", "--reminder", "20m"])
        try inStep(7200, 1200, "the CLI")

        XCTAssertEqual(device.stop(), 0)
        let config = try String(contentsOfFile: device.configPath, encoding: .utf8)
            .replacingOccurrences(of: "interval = \"1h\"", with: "interval = \"3h\"")
            .replacingOccurrences(of: "reminder = \"10m\"", with: "reminder = \"30m\"")
        try config.write(toFile: device.configPath, atomically: true, encoding: .utf8)
        try device.start()
        try inStep(10_800, 1800, "the edited config")

        try server.setSettings(DeviceSettings(intervalSeconds: 14_400, reminderSeconds: 2400, version: 50), device: Self.deviceID)
        try device.ctl(["check-in"])  // the next sync with the backend brings them over
        try inStep(14_400, 2400, "the backend")
        XCTAssertEqual(server.healthchecksChecks.filter { $0.slug == "lifesignal-check-in" }.count, 1, "one check, kept in step")
        let status = try device.status()
        XCTAssertEqual(status.healthchecksChecks?.inStep, true)
        XCTAssertTrue(device.log.contains("healthchecks checks in step"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAReadOnlyKeyIsSaidPlainlyAndTheCheckInsWaitingForItArePingedOnceTheKeyIsFixed() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server, key: HealthchecksProject.devReadOnlyKey)
        try device.start()
        try device.waitUntil("the refusal is a condition") {
            try device.status().conditions?.contains { $0.kind == "checks_not_in_step" } == true
        }
        let condition = try XCTUnwrap(try device.status().conditions?.first { $0.kind == "checks_not_in_step" })
        XCTAssertTrue(condition.message.contains("HTTP 401: wrong api key"), condition.message)
        XCTAssertTrue(condition.advice.contains("read-write"), condition.advice)
        XCTAssertFalse(condition.message.contains(HealthchecksProject.devReadOnlyKey), "the key is a secret")
        XCTAssertTrue(device.log.contains("healthchecks checks NOT set up or kept in step"), device.log)
        let checkIn = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        XCTAssertEqual(server.healthchecksPings, [])

        XCTAssertEqual(device.stop(), 0)
        let keyPath = try XCTUnwrap(try String(contentsOfFile: device.configPath, encoding: .utf8).split(separator: "\n")
            .first { $0.hasPrefix("api_key_file") }?.split(separator: "\"").dropFirst().first.map(String.init))
        try (HealthchecksProject.devReadWriteKey + "\n").write(toFile: keyPath, atomically: false, encoding: .utf8)
        try device.start()
        try device.waitUntil("the check-in made while the key was wrong is pinged") {
            server.healthchecksPings.contains { $0.body.contains(checkIn.id) }
        }
        XCTAssertEqual(server.healthchecksPings.filter { $0.body.contains(checkIn.id) }.count, 1)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAWrongPingURLIsARefusalInStatusAndTheLogAndLosesNothing() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        // A ping key the project does not have: healthchecks answers 404.
        let wrong = "\(server.baseURL)/ping/not-this-projects-ping-key/mum"
        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [healthchecks]
            check_in_url = "\(wrong)"
            heartbeat_url = "\(wrong)-heartbeat"
            retry_max = "1s"
            """)
        try device.start()
        try device.waitUntil("the refused heartbeat is a condition") {
            try device.status().conditions?.contains { $0.kind == "heartbeat_refused" } == true
        }
        let checkIn = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        try device.waitUntil("the refused ping is a condition") {
            try device.status().conditions?.contains { $0.kind == "upload_refused" } == true
        }
        let status = try device.status()
        let refused = try XCTUnwrap(status.conditions?.first { $0.kind == "upload_refused" })
        XCTAssertTrue(refused.message.contains("HTTP 404: not found (no such check: compare the ping URL"), refused.message)
        XCTAssertFalse(refused.message.contains("not-this-projects"), "the ping URL is a secret: \(refused.message)")
        XCTAssertNotEqual(status.indicator, "fault", "the check-in is kept: the LEDs say checked in")
        XCTAssertTrue(device.log.contains("REFUSED"), device.log)
        let text = try device.ctl(["status"]).standardOutput
        XCTAssertTrue(text.contains("STOPPED: refused"), text)
        XCTAssertFalse(text.contains("<"), text)
        XCTAssertEqual(status.healthchecksQueueDepth, 1, "kept for the check")

        XCTAssertEqual(device.stop(), 0)
        let right = "\(server.baseURL)/ping/\(HealthchecksProject.devPingKey)/mum"
        let fixed = try String(contentsOfFile: device.configPath, encoding: .utf8).replacingOccurrences(of: wrong, with: right)
        try fixed.write(toFile: device.configPath, atomically: true, encoding: .utf8)
        try device.start()
        try device.waitUntil("the kept check-in reaches the right check") {
            server.healthchecksPings.contains { $0.check == "\(HealthchecksProject.devPingKey)/mum" && $0.body.contains(checkIn.id) }
        }
        try device.waitUntil("the conditions cleared") { try device.status().conditions?.isEmpty == true }
        XCTAssertEqual(device.stop(), 0)
    }

    func testAServerErrorIsRetriedSaidReadablyAndThePingArrivesOnce() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server)
        try device.start()
        try device.waitUntil("the device made its checks") { self.server(server, hasChecks: ["check-in", "heartbeat", "alert"]) }
        let uuid = try XCTUnwrap(check(server, "check-in")?.uuid)
        server.inject(FaultUpdate(schedule: [Fault(.htmlPage, count: 3, status: 500, operation: "POST /ping/\(uuid)")]))
        let checkIn = try device.decode(CheckInReport.self, device.ctl(["check-in", "--json"]))
        try device.waitUntil("the ping got through after the errors") {
            server.healthchecksPings.contains { $0.body.contains(checkIn.id) }
        }
        XCTAssertEqual(server.healthchecksPings.filter { $0.body.contains(checkIn.id) }.count, 1)
        XCTAssertTrue(device.log.contains("answered HTTP 500: an HTML page titled \"500 Internal Server Error\""), device.log)
        XCTAssertFalse(device.log.contains("<!DOCTYPE"), "never raw markup in the log")
        XCTAssertEqual(device.stop(), 0)
    }

    func testAKeyThatIsNoHealthchecksKeyStopsTheStartWithEXCONFIGNamingTheFile() throws {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(server, key: "pasted-the-wrong-thing")
        let process = Process()
        process.executableURL = DaemonHarness.binaries.appendingPathComponent("lifesignald")
        process.arguments = ["--config", device.configPath]
        process.environment = DaemonHarness.baseEnvironment(home: device.directory.path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 78, text)
        XCTAssertTrue(text.contains("the healthchecks API key file"), text)
        XCTAssertTrue(text.contains("holds 22 characters; a healthchecks API key has 32"), text)
        XCTAssertFalse(text.contains("pasted-the-wrong-thing"), "the key is a secret: \(text)")
        XCTAssertEqual(server.healthchecksChecks, [], "nothing was sent with it")
    }

    private func server(_ server: DevServer, hasChecks roles: [String]) -> Bool {
        roles.allSatisfy { check(server, $0) != nil }
    }
}
