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

    static let key = "dGhpc2lzYXBpbmdrZXkwMQ"
    static let uuid = "5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"

    func testHealthchecksNeedsOneURLAndReadsEveryKey() throws {
        XCTAssertNil(try load("").get().healthchecks)
        let heartbeatOnly = "https://hc.example.org/ping/\(Self.key)/device"
        let only = try load("[healthchecks]\nheartbeat_url = \"\(heartbeatOnly)\"\n").get()
        XCTAssertEqual(only.healthchecks, HealthchecksConfiguration(checkInURL: nil, heartbeatURL: heartbeatOnly))
        XCTAssertFalse(only.alert.enabled, "a heartbeat check cannot deliver a help alert")
        let full = try load("""
            [healthchecks]
            check_in_url = "http://localhost:8000/ping/\(Self.uuid)"
            heartbeat_url = "https://hc-ping.com/\(Self.key)/heartbeat"
            alert_url = "https://hc-ping.com/\(Self.key)/help_alert/"
            heartbeat = "5m"
            timeout = "10s"
            retry_max = "1h"
            late_after = "30m"
            """).get()
        XCTAssertEqual(full.healthchecks, HealthchecksConfiguration(
            checkInURL: "http://localhost:8000/ping/\(Self.uuid)", heartbeatURL: "https://hc-ping.com/\(Self.key)/heartbeat",
            heartbeat: .seconds(300), timeout: .seconds(10), retryMax: .seconds(3600), lateAfter: .seconds(1800),
            alertURL: "https://hc-ping.com/\(Self.key)/help_alert/"))
        XCTAssertTrue(full.alert.enabled, "an alert check delivers help alerts: on by default")
        XCTAssertTrue(problems("[healthchecks]\nheartbeat = \"5m\"\n").contains("healthchecks.check_in_url"))
        let plain = problems("[healthchecks]\ncheck_in_url = \"http://hc.example.org/\(Self.uuid)\"\n")
        XCTAssertTrue(plain.contains("healthchecks.check_in_url") && plain.contains("ping URL"), plain)
        XCTAssertTrue(problems("[healthchecks]\ncheck_in_url = \"https://x/\(Self.uuid)\"\nlate_after = \"10s\"\n")
            .contains("healthchecks.late_after"))
    }

    /// A ping URL that can only fail is refused at config check, with where it is and the URL
    /// the person probably meant.
    func testEveryURLThatCanOnlyFailIsRefusedWithTheURLMeant() {
        let cases: [(url: String, says: String, meant: String?)] = [
            ("https://hc-ping.com/\(Self.uuid)/fail", "ends with /fail", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.uuid)/start", "ends with /start", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.uuid)/log", "ends with /log", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.uuid)/1", "exit status", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.key)/mum/fail", "ends with /fail", "https://hc-ping.com/\(Self.key)/mum"),
            ("https://hc-ping.com/\(Self.uuid)?rid=1", "query string", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.uuid)#x", "query string", "https://hc-ping.com/\(Self.uuid)"),
            ("https://healthchecks.io/checks/\(Self.uuid)/details/", "page in the web interface", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc.example.org/checks/\(Self.uuid)/details/", "page in the web interface", "https://hc.example.org/ping/\(Self.uuid)"),
            ("https://hc.example.org/hc/checks/\(Self.uuid)/log/", "page in the web interface", "https://hc.example.org/hc/ping/\(Self.uuid)"),
            ("https://healthchecks.io/api/v3/checks/\(Self.uuid)", "management API", "https://hc-ping.com/\(Self.uuid)"),
            ("https://healthchecks.io/projects/\(Self.uuid)/checks/", "page of the web interface", nil),
            ("https://hc-ping.com/\(Self.uuid.uppercased())", "lower-case", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/\(Self.key)/Mum", "lower-case", "https://hc-ping.com/\(Self.key)/mum"),
            ("https://hc-ping.com/ 5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10", "contains a space", "https://hc-ping.com/\(Self.uuid)"),
            ("https://hc-ping.com/abc", "does not end with a check's uuid", nil),
            ("https://hc.example.org/ping/my-check", "does not end with a check's uuid", nil),
            ("https://hc-ping.com", "has no check", nil),
            ("https:///\(Self.uuid)", "has no host", nil),
        ]
        for (key, table) in [("check_in_url", "healthchecks"), ("heartbeat_url", "healthchecks"), ("alert_url", "healthchecks")] {
            for item in cases {
                let text = problems("[\(table)]\n\(key) = \"\(item.url)\"\n")
                XCTAssertTrue(text.contains("lifesignald.toml:2:") && text.contains("healthchecks.\(key)"), "\(item.url): \(text)")
                XCTAssertTrue(text.contains(item.says), "\(item.url): \(text)")
                if let meant = item.meant {
                    XCTAssertTrue(text.contains("did you mean \"\(meant)\"?"), "\(item.url): \(text)")
                }
                XCTAssertFalse(text.contains("has no host") && item.says != "has no host", "\(item.url): \(text)")
            }
        }
        // What healthchecks really serves passes: a uuid, a ping key and slug, with or without a
        // trailing slash, under a self-hosted site's path.
        for good in ["https://hc-ping.com/\(Self.uuid)", "https://hc-ping.com/\(Self.uuid)/", "https://hc-ping.com/\(Self.key)/mum-check_in",
                     "https://hc.example.org/monitor/ping/\(Self.uuid)", "http://127.0.0.1:8000/ping/\(Self.key)/x"] {
            XCTAssertNoThrow(try load("[healthchecks]\ncheck_in_url = \"\(good)\"\n").get(), good)
        }
    }

    func testAnAPIKeyFileMakesTheDeviceKeepItsOwnChecksAndRefusesHandMadeURLsBesideIt() throws {
        let managed = try load("[healthchecks]\napi_key_file = \"/etc/lifesignal/healthchecks-api-key\"\n").get()
        XCTAssertEqual(managed.healthchecks?.management,
                       HealthchecksManagement(apiURL: "https://healthchecks.io", apiKeyFile: "/etc/lifesignal/healthchecks-api-key",
                                              slugPrefix: "lifesignal"))
        XCTAssertEqual(managed.healthchecks?.hasCheckInCheck, true)
        XCTAssertEqual(managed.healthchecks?.hasHeartbeatCheck, true)
        XCTAssertTrue(managed.alert.enabled, "the device's own alert check delivers help alerts")
        XCTAssertTrue(managed.canReportMissedCheckIns)
        let selfHosted = try load("""
            [healthchecks]
            api_key_file = "/etc/lifesignal/healthchecks-api-key"
            api_url = "https://hc.example.org"
            slug_prefix = "mum"
            """).get()
        XCTAssertEqual(selfHosted.healthchecks?.management?.apiURL, "https://hc.example.org")
        XCTAssertEqual(selfHosted.healthchecks?.management?.slugPrefix, "mum")

        let both = problems("[healthchecks]\napi_key_file = \"/k\"\ncheck_in_url = \"https://hc-ping.com/\(Self.uuid)\"\n")
        XCTAssertTrue(both.contains("lifesignald.toml:3:1: healthchecks.check_in_url") && both.contains("creates and finds its own checks"), both)
        let stray = problems("[healthchecks]\ncheck_in_url = \"https://hc-ping.com/\(Self.uuid)\"\nslug_prefix = \"mum\"\n")
        XCTAssertTrue(stray.contains("healthchecks.slug_prefix") && stray.contains("only matters with api_key_file"), stray)
        XCTAssertTrue(problems("[healthchecks]\napi_key_file = \"key\"\n").contains("absolute path"))
        XCTAssertTrue(problems("[healthchecks]\napi_key_file = \"/k\"\napi_url = \"http://hc.example.org\"\n").contains("API key"))
        XCTAssertTrue(problems("[healthchecks]\napi_key_file = \"/k\"\nslug_prefix = \"Mum's\"\n").contains("slug"))
    }

    func testHelpAlertsNeedSomethingThatCanDeliverThemAndSayWhatCould() {
        let refused = problems("[alert]\nenabled = true\n[healthchecks]\ncheck_in_url = \"https://hc-ping.com/\(Self.uuid)\"\n")
        XCTAssertTrue(refused.contains("alert.enabled") && refused.contains("alert_url"), refused)
        XCTAssertNoThrow(try load("[alert]\nenabled = true\n[healthchecks]\nalert_url = \"https://hc-ping.com/\(Self.uuid)\"\n").get())
    }
}
