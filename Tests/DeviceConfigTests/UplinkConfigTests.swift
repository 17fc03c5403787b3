import DeviceConfig
import XCTest

final class UplinkConfigTests: XCTestCase {
    private func load(_ text: String) -> Result<DeviceConfiguration, ConfigErrors> {
        DeviceConfiguration.load(text: text, path: "/etc/lifesignal/lifesignald.toml", environment: ["HOME": "/home/ada"])
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        switch load(text) {
        case .success(let configuration):
            XCTFail("expected problems, loaded \(configuration)", file: file, line: line)
            return ""
        case .failure(let errors):
            return "\(errors)"
        }
    }

    func testNoUplinkTableIsAnOfflineDevice() throws {
        XCTAssertNil(try load("").get().uplink)
    }

    func testHelpAlertsAreOnExactlyWhenSomethingCanDeliverThem() throws {
        XCTAssertFalse(try load("").get().alert.enabled, "offline: a long press asks nobody")
        let uplink = "[uplink]\nurl = \"https://api.example.org\"\ntoken_file = \"/etc/lifesignal/token\"\n"
        XCTAssertTrue(try load(uplink).get().alert.enabled)
        XCTAssertFalse(try load(uplink + "[alert]\nenabled = false\n").get().alert.enabled)
        let refused = problems("[alert]\nenabled = true\n")
        XCTAssertTrue(refused.contains("lifesignald.toml:2:1: alert.enabled") || refused.contains("alert.enabled"), refused)
        XCTAssertTrue(refused.contains("nothing can deliver a help alert"), refused)
    }

    func testEveryUplinkKeyIsReadWithDefaultsForTheOptionalOnes() throws {
        let minimal = try load("[uplink]\nurl = \"https://api.example.org\"\ntoken_file = \"/etc/lifesignal/token\"\n").get()
        XCTAssertEqual(minimal.uplink, UplinkConfiguration(url: "https://api.example.org", tokenFile: "/etc/lifesignal/token",
                                                           batchSize: 500, timeout: .seconds(30), retryMax: .seconds(900)))
        let full = try load("""
            [uplink]
            url = "http://127.0.0.1:8080"
            token_file = "/run/credentials/lifesignald.service/token"
            batch_size = 50
            timeout = "10s"
            retry_max = "5m"
            notifications_refresh = "2m"
            heartbeat = "1h"
            """).get()
        XCTAssertEqual(full.uplink, UplinkConfiguration(url: "http://127.0.0.1:8080",
                                                        tokenFile: "/run/credentials/lifesignald.service/token",
                                                        batchSize: 50, timeout: .seconds(10), retryMax: .seconds(300),
                                                        notificationsRefresh: .seconds(120), heartbeat: .seconds(3600)))
    }

    func testPlainHTTPToAnotherMachineIsRefusedBecauseItWouldLeakTheToken() {
        let message = problems("[uplink]\nurl = \"http://api.example.org\"\ntoken_file = \"/etc/t\"\n")
        XCTAssertTrue(message.contains("uplink.url") && message.contains("unencrypted"), message)
        for loopback in ["http://localhost:8080", "http://[::1]:8080/", "http://127.0.0.1"] {
            XCTAssertNoThrow(try load("[uplink]\nurl = \"\(loopback)\"\ntoken_file = \"/etc/t\"\n").get(), loopback)
        }
    }

    func testBadURLsMissingTokenFileAndOutOfRangeValuesAreNamed() {
        XCTAssertTrue(problems("[uplink]\nurl = \"ftp://x\"\ntoken_file = \"/t\"\n").contains("not an http(s) URL"))
        XCTAssertTrue(problems("[uplink]\nurl = \"https://user:pw@x\"\ntoken_file = \"/t\"\n").contains("credentials"))
        XCTAssertTrue(problems("[uplink]\nurl = \"https://x\"\n").contains("uplink.token_file"))
        XCTAssertTrue(problems("[uplink]\ntoken_file = \"/t\"\n").contains("uplink.url"))
        XCTAssertTrue(problems("[uplink]\nurl = \"https://x\"\ntoken_file = \"/t\"\nbatch_size = 5000\n").contains("uplink.batch_size"))
        XCTAssertTrue(problems("[uplink]\nurl = \"https://x\"\ntoken_file = \"relative\"\n").contains("uplink.token_file"))
        XCTAssertTrue(problems("[uplink]\nurl = \"https://x\"\ntoken_file = \"/t\"\ntimeout = \"0s\"\n").contains("uplink.timeout"))
    }

    func testHealthchecksNeedsOneURLAndReadsEveryKey() throws {
        XCTAssertNil(try load("").get().healthchecks)
        let only = try load("[healthchecks]\nheartbeat_url = \"https://hc.example.org/ping/key/device\"\n").get()
        XCTAssertEqual(only.healthchecks, HealthchecksConfiguration(checkInURL: nil, heartbeatURL: "https://hc.example.org/ping/key/device"))
        let full = try load("""
            [healthchecks]
            check_in_url = "http://localhost:8000/ping/abc"
            heartbeat_url = "https://hc-ping.com/def"
            heartbeat = "5m"
            timeout = "10s"
            retry_max = "1h"
            late_after = "30m"
            """).get()
        XCTAssertEqual(full.healthchecks, HealthchecksConfiguration(
            checkInURL: "http://localhost:8000/ping/abc", heartbeatURL: "https://hc-ping.com/def", heartbeat: .seconds(300),
            timeout: .seconds(10), retryMax: .seconds(3600), lateAfter: .seconds(1800)))
        XCTAssertTrue(problems("[healthchecks]\nheartbeat = \"5m\"\n").contains("healthchecks.check_in_url"))
        let plain = problems("[healthchecks]\ncheck_in_url = \"http://hc.example.org/abc\"\n")
        XCTAssertTrue(plain.contains("healthchecks.check_in_url") && plain.contains("ping URL"), plain)
        XCTAssertTrue(problems("[healthchecks]\ncheck_in_url = \"https://x/a\"\nlate_after = \"10s\"\n")
            .contains("healthchecks.late_after"))
    }
}
