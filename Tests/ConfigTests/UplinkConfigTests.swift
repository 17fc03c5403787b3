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
            """).get()
        XCTAssertEqual(full.uplink, UplinkConfiguration(url: "http://127.0.0.1:8080",
                                                        tokenFile: "/run/credentials/lifesignald.service/token",
                                                        batchSize: 50, timeout: .seconds(10), retryMax: .seconds(300),
                                                        notificationsRefresh: .seconds(120)))
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
}
