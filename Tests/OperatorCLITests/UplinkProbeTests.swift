import ControlProtocol
import DevServer
import DeviceConfig
import Glibc
@testable import OperatorCLI
import TestSupport
import UplinkLive
import XCTest

/// `lifesignalctl doctor`'s backend and healthchecks checks against the reference server.
final class UplinkProbeTests: XCTestCase {
    var directory: TemporaryDirectory!
    var server: DevServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        server = try DevServer(DevServer.Options(databasePath: "\(directory.path)/server.sqlite",
                                                 tokens: ["good-token": "device-1"]))
    }

    override func tearDown() {
        server.stop()
        server = nil
        directory = nil
    }

    private func tokenFile(_ token: String, mode: mode_t = 0o600) throws -> String {
        let path = try directory.write("token", token + "\n")
        chmod(path, mode)
        return path
    }

    private func uplink(token path: String, url: String? = nil) -> UplinkConfiguration {
        UplinkConfiguration(url: url ?? server.baseURL, tokenFile: path, timeout: .seconds(5))
    }

    private func text(_ findings: [DoctorFinding]) -> String { findings.map(\.text).joined(separator: "\n") }

    func testAReachableBackendThatAcceptsTheTokenIsOK() throws {
        let findings = UplinkProbe.backend(uplink(token: try tokenFile("good-token")))
        XCTAssertEqual(findings.map(\.outcome), [.ok, .ok], text(findings))
        XCTAssertEqual(server.stats.requestsByOperation["GET /v1/settings"], 1)
        XCTAssertFalse(text(findings).contains("good-token"))
    }

    func testAWrongTokenIsAProblemThatSaysToFixTheToken() throws {
        let findings = UplinkProbe.backend(uplink(token: try tokenFile("stale-token")))
        XCTAssertEqual(findings.map(\.outcome), [.ok, .problem], text(findings))
        XCTAssertTrue(findings[1].detail.contains("401"), findings[1].detail)
        XCTAssertTrue(findings[1].fix?.contains("token_file") == true, text(findings))
    }

    func testAWorldReadableTokenFileIsAProblemAndNothingIsSent() throws {
        let findings = UplinkProbe.backend(uplink(token: try tokenFile("good-token", mode: 0o644)))
        XCTAssertEqual(findings.map(\.outcome), [.problem], text(findings))
        XCTAssertTrue(findings[0].detail.contains("chmod 600"), findings[0].detail)
        XCTAssertEqual(server.stats.deviceRequests, 0)
    }

    func testABackendThatIsDownIsAProblemThatPointsAtTheNetwork() throws {
        let url = server.baseURL
        server.stop()
        let findings = UplinkProbe.backend(uplink(token: try tokenFile("good-token"), url: url))
        XCTAssertEqual(findings.last?.outcome, .problem, text(findings))
        XCTAssertTrue(findings.last?.detail.contains(url) == true, text(findings))
        XCTAssertTrue(findings.last?.fix?.contains("network") == true, text(findings))
    }

    func testSendTestGivesEachHandMadeCheckALogEntryAndAMissingOneIsAProblem() throws {
        let alert = "\(server.baseURL)/ping/\(HealthchecksProject.devPingKey)/help"
        let configuration = DeviceConfiguration(
            storePath: "\(directory.path)/store.sqlite", controlSocket: "\(directory.path)/control.sock",
            healthchecks: HealthchecksConfiguration(checkInURL: "\(server.baseURL)/ping/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10",
                                                    heartbeatURL: "\(server.baseURL)/ping/\(HealthchecksProject.devPingKey)/heartbeat",
                                                    timeout: .seconds(5), alertURL: alert))
        XCTAssertEqual(UplinkProbe.check(configuration).map(\.outcome), [.ok, .ok, .ok, .ok, .ok])
        XCTAssertEqual(server.healthchecksPings, [], "without --send-test no check is contacted")
        let findings = UplinkProbe.check(configuration, sendTest: true)
        XCTAssertEqual(findings.map(\.outcome), [.ok, .ok, .ok, .ok, .ok], text(findings))
        XCTAssertEqual(findings.map(\.check), ["libcurl", "backend", "healthchecks check-in check", "healthchecks heartbeat check",
                                               "healthchecks alert check"])
        XCTAssertTrue(findings[0].detail.contains("libcurl/"), "names the libcurl it loaded: \(findings[0].detail)")
        XCTAssertEqual(server.healthchecksPings.map(\.kind), ["log", "log", "log"], "doctor never marks a check up or down")
        XCTAssertEqual(server.healthchecksPings.map(\.check), ["5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10",
                                                              "\(HealthchecksProject.devPingKey)/heartbeat", "\(HealthchecksProject.devPingKey)/help"])
        XCTAssertTrue(server.healthchecksPings.allSatisfy { $0.userAgent?.hasPrefix("lifesignalctl/") == true })

        server.inject(FaultUpdate(schedule: [Fault(.status, status: 404)]))
        let missing = UplinkProbe.ping("healthchecks check-in check", url: "\(server.baseURL)/ping/gone", timeout: .seconds(5))
        XCTAssertEqual(missing.outcome, .problem, missing.text)
        XCTAssertTrue(missing.fix?.contains("[healthchecks]") == true, missing.text)
        XCTAssertFalse(missing.text.contains("/ping/gone"), "the ping URL is a secret: shortened")
    }
}

final class QueueFormattingTests: XCTestCase {
    func testRefusedCheckInsAreListedWithTheServersMessage() {
        let checkIn = CheckInReport(id: "0b7e1c2a-1111-4222-8333-444455556666", time: "2026-11-22T21:55:19Z",
                                    wallClockSynchronized: true, source: "button", uploaded: false, bootID: "b")
        var report = QueueReport(depth: 0, oldestPending: nil, uplink: nil)
        report.hasBackend = true
        report.refused = [RefusedCheckInReport(checkIn: checkIn, message: "checkIns[0]: wallTime must be RFC 3339")]
        report.refusedCount = 1
        let text = Formatting.queue(report)
        XCTAssertTrue(text.contains("1 check-in refused for good by the backend"), text)
        XCTAssertTrue(text.contains("0b7e1c2a-1111-4222-8333-444455556666: checkIns[0]: wallTime must be RFC 3339"), text)
    }
}

/// Doctor with the device's own checks: the key, each check against the settings, and --send-test.
final class ManagedChecksProbeTests: XCTestCase {
    var directory: TemporaryDirectory!
    var server: DevServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
        server = try DevServer(DevServer.Options(databasePath: "\(directory.path)/server.sqlite", tokens: ["t": "d"]))
    }

    override func tearDown() {
        server.stop()
        server = nil
        directory = nil
    }

    private func configuration(key: String) throws -> DeviceConfiguration {
        let keyFile = try directory.write("api-key", key + "\n", mode: 0o600)
        return DeviceConfiguration(
            storePath: "\(directory.path)/store.sqlite", controlSocket: "\(directory.path)/control.sock",
            healthchecks: HealthchecksConfiguration(checkInURL: nil, timeout: .seconds(5), management: HealthchecksManagement(
                apiURL: server.baseURL, apiKeyFile: keyFile, slugPrefix: "mum")))
    }

    /// A check made through the API, as the device (or a person) would make it.
    private func create(_ slug: String, timeout: Int64, grace: Int64) throws {
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: .post, url: "\(server.baseURL)/api/v3/checks/", headers: ["X-Api-Key: \(HealthchecksProject.devReadWriteKey)"],
            body: Array("{\"slug\": \"\(slug)\", \"timeout\": \(timeout), \"grace\": \(grace)}".utf8), timeout: .seconds(5))).get()
        XCTAssertEqual(response.status, 201)
    }

    func testChecksNotMadeYetOrOutOfStepAreWarningsAndSendTestLogsToEachCheckInStep() throws {
        let findings = UplinkProbe.check(try configuration(key: HealthchecksProject.devReadWriteKey))
        XCTAssertEqual(findings.filter { $0.check.hasPrefix("healthchecks") }.map(\.outcome), [.ok, .warning, .warning, .warning],
                       findings.map(\.text).joined(separator: "\n"))
        XCTAssertTrue(findings.contains { $0.detail.contains("mum-check-in does not exist") && $0.fix?.contains("creates its checks") == true })

        try create("mum-check-in", timeout: 79_200, grace: 7200)  // 24 h and 2 h: in step with the defaults
        try create("mum-heartbeat", timeout: 900, grace: 60)        // not in step
        try create("mum-alert", timeout: 31_536_000, grace: 31_536_000)
        let checked = UplinkProbe.check(try configuration(key: HealthchecksProject.devReadWriteKey))
        let byCheck = Dictionary(checked.map { ($0.check, $0) }, uniquingKeysWith: { $1 })
        XCTAssertEqual(byCheck["healthchecks check-in check"]?.outcome, .ok)
        XCTAssertTrue(byCheck["healthchecks check-in check"]?.detail.contains("timeout 22 h, grace 2 h") == true)
        XCTAssertEqual(byCheck["healthchecks heartbeat check"]?.outcome, .warning)
        XCTAssertTrue(byCheck["healthchecks heartbeat check"]?.detail.contains("want timeout 15 min, grace 30 min") == true,
                      byCheck["healthchecks heartbeat check"]?.text ?? "")
        XCTAssertEqual(server.healthchecksPings, [])

        _ = UplinkProbe.check(try configuration(key: HealthchecksProject.devReadWriteKey), sendTest: true)
        XCTAssertEqual(server.healthchecksPings.map(\.kind), ["log", "log"], "a test entry on each check in step")
    }

    func testAReadOnlyKeyIsAProblemThatNamesTheKeyNeeded() throws {
        try create("mum-check-in", timeout: 79_200, grace: 7200)
        let findings = UplinkProbe.check(try configuration(key: HealthchecksProject.devReadOnlyKey))
        let problem = try XCTUnwrap(findings.first { $0.check == "healthchecks check-in check" })
        XCTAssertEqual(problem.outcome, .problem, problem.text)
        XCTAssertTrue(problem.detail.contains("read-only"), problem.text)
        let wrong = UplinkProbe.check(try configuration(key: "wrong-key-0000000000000000000000"))
        XCTAssertTrue(wrong.contains { $0.outcome == .problem && $0.detail.contains("401") && $0.fix?.contains("read-write") == true },
                      wrong.map(\.text).joined(separator: "\n"))
        let short = UplinkProbe.check(try configuration(key: "too-short"))
        XCTAssertTrue(short.contains { $0.check == "healthchecks API key" && $0.detail.contains("has 32") },
                      short.map(\.text).joined(separator: "\n"))
    }
}
