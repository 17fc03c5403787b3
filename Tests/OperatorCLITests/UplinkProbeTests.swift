import ControlProtocol
import DevServer
import DeviceConfig
import Glibc
@testable import OperatorCLI
import TestSupport
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

    func testHealthchecksChecksGetALogEntryAndAMissingOneIsAProblem() throws {
        let configuration = DeviceConfiguration(
            storePath: "\(directory.path)/store.sqlite", controlSocket: "\(directory.path)/control.sock",
            healthchecks: HealthchecksConfiguration(checkInURL: "\(server.baseURL)/ping/check-uuid",
                                                    heartbeatURL: "\(server.baseURL)/ping/key/heartbeat", timeout: .seconds(5)))
        let findings = UplinkProbe.check(configuration)
        XCTAssertEqual(findings.map(\.outcome), [.ok, .ok, .ok, .ok], text(findings))
        XCTAssertEqual(findings.map(\.check), ["libcurl", "backend", "healthchecks check-in check", "healthchecks heartbeat check"])
        XCTAssertTrue(findings[0].detail.contains("libcurl/"), "names the libcurl it loaded: \(findings[0].detail)")
        XCTAssertEqual(server.healthchecksPings.map(\.kind), ["log", "log"], "doctor never marks a check up")
        XCTAssertEqual(server.healthchecksPings.map(\.check), ["check-uuid", "key/heartbeat"])

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
        report.refused = [RefusedCheckInReport(checkIn: checkIn, message: "checkIns[0]: wallTime must be RFC 3339")]
        report.refusedCount = 1
        let text = Formatting.queue(report)
        XCTAssertTrue(text.contains("1 check-in refused for good by the backend"), text)
        XCTAssertTrue(text.contains("0b7e1c2a-1111-4222-8333-444455556666: checkIns[0]: wallTime must be RFC 3339"), text)
    }
}
