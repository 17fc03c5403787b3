import DeviceConfig
import XCTest

/// `[mqtt]`: every key with its default, and every mistake refused with file, line and key.
final class MQTTConfigTests: XCTestCase {
    private func load(_ text: String) -> Result<DeviceConfiguration, ConfigErrors> {
        DeviceConfiguration.load(text: text, path: "/etc/lifesignal/lifesignald.toml", environment: ["HOME": "/home/ada"])
    }

    private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        switch load(text) {
        case .success(let configuration):
            XCTFail("expected problems, loaded \(String(describing: configuration.mqtt))", file: file, line: line)
            return ""
        case .failure(let errors):
            return "\(errors)"
        }
    }

    func testNoMQTTTableIsNoBroker() throws {
        XCTAssertNil(try load("").get().mqtt)
    }

    func testAHostAloneTakesEveryDefault() throws {
        let mqtt = try XCTUnwrap(try load("[mqtt]\nhost = \"homeassistant.local\"\n").get().mqtt)
        XCTAssertEqual(mqtt, MQTTConfiguration(host: "homeassistant.local"))
        XCTAssertEqual(mqtt.port, 1883)
        XCTAssertEqual(mqtt.tls, .off)
        XCTAssertEqual(mqtt.keepAlive, .seconds(60))
        XCTAssertEqual(mqtt.discoveryPrefix, "homeassistant")
        XCTAssertNil(mqtt.baseTopic, "lifesignal/<device id>, once the id is known")
        XCTAssertFalse(mqtt.remoteCheckIn, "remote check-in is off unless asked for")
        XCTAssertFalse(mqtt.remoteAway, "remote away mode is off unless asked for")
        XCTAssertEqual(mqtt.retryMax, .seconds(300))
    }

    func testEveryKeyIsRead() throws {
        let mqtt = try load("""
            [mqtt]
            host = "broker.example.org"
            port = 18883
            tls = true
            ca_file = "/etc/lifesignal/ca.pem"
            username = "hall-button"
            password_file = "/etc/lifesignal/mqtt-password"
            client_id = "lifesignal-hall"
            keep_alive = "2m"
            discovery_prefix = "ha/discovery"
            base_topic = "home/hall/lifesignal"
            device_id = "hall"
            device_name = "Grandma's button"
            remote_check_in = true
            remote_away = true
            retry_max = "30s"
            """).get().mqtt
        XCTAssertEqual(mqtt, MQTTConfiguration(
            host: "broker.example.org", port: 18883, tls: .caFile("/etc/lifesignal/ca.pem"), username: "hall-button",
            passwordFile: "/etc/lifesignal/mqtt-password", clientID: "lifesignal-hall", keepAlive: .seconds(120),
            discoveryPrefix: "ha/discovery", baseTopic: "home/hall/lifesignal", deviceID: "hall", deviceName: "Grandma's button",
            remoteCheckIn: true, remoteAway: true, retryMax: .seconds(30)))
    }

    func testTLSChoosesTheSystemStoreOrTheCAFileAndPort8883() throws {
        XCTAssertEqual(try load("[mqtt]\nhost = \"b\"\ntls = true\n").get().mqtt?.tls, .systemCertificates)
        XCTAssertEqual(try load("[mqtt]\nhost = \"b\"\ntls = true\n").get().mqtt?.port, 8883)
        XCTAssertEqual(try load("[mqtt]\nhost = \"b\"\nca_file = \"/etc/ca.pem\"\n").get().mqtt?.tls, .caFile("/etc/ca.pem"))
        let contradiction = problems("[mqtt]\nhost = \"b\"\ntls = false\nca_file = \"/etc/ca.pem\"\n")
        XCTAssertTrue(contradiction.contains("lifesignald.toml:4:1: mqtt.ca_file"), contradiction)
        XCTAssertTrue(contradiction.contains("set tls = true"), contradiction)
    }

    func testEachBadValueIsRefusedWithFileLineAndKey() {
        let cases: [(text: String, key: String, says: String)] = [
            ("port = 0", "mqtt.port", "out of range"),
            ("port = \"1883\"", "mqtt.port", "without quotes"),
            ("keep_alive = \"2s\"", "mqtt.keep_alive", "out of range"),
            ("keep_alive = \"5500ms\"", "mqtt.keep_alive", "whole number of seconds"),
            ("retry_max = \"2h\"", "mqtt.retry_max", "out of range"),
            ("discovery_prefix = \"homeassistant/#\"", "mqtt.discovery_prefix", "wildcard"),
            ("base_topic = \"/lifesignal\"", "mqtt.base_topic", "empty level"),
            ("base_topic = \"$SYS/x\"", "mqtt.base_topic", "starts with '$'"),
            ("device_id = \"hall button\"", "mqtt.device_id", "letters, digits"),
            ("client_id = \"\"", "mqtt.client_id", "empty string"),
            ("remote_check_in = \"yes\"", "mqtt.remote_check_in", "true or false"),
            ("remote_away = 1", "mqtt.remote_away", "true or false"),
            ("ca_file = \"ca.pem\"", "mqtt.ca_file", "absolute path"),
            ("password_file = \"relative\"\nusername = \"u\"", "mqtt.password_file", "absolute path"),
            ("device_name = \"\(String(repeating: "x", count: 65))\"", "mqtt.device_name", "at most 64"),
        ]
        for (text, key, says) in cases {
            let message = problems("[mqtt]\nhost = \"homeassistant.local\"\n\(text)\n")
            XCTAssertTrue(message.contains("lifesignald.toml:3:"), "\(text): \(message)")
            XCTAssertTrue(message.contains(key), "\(text): \(message)")
            XCTAssertTrue(message.contains(says), "\(text): \(message)")
        }
    }

    func testAHostWithASchemeOrPortAndKeysWithoutAHostAreRefused() {
        let scheme = problems("[mqtt]\nhost = \"mqtt://broker.lan\"\n")
        XCTAssertTrue(scheme.contains("lifesignald.toml:2:8: mqtt.host") && scheme.contains("has a scheme"), scheme)
        let port = problems("[mqtt]\nhost = \"broker.lan:1883/x\"\n")
        XCTAssertTrue(port.contains("mqtt.host") && port.contains("the port goes in port"), port)
        let noHost = problems("[mqtt]\nport = 1883\n")
        XCTAssertTrue(noHost.contains("lifesignald.toml:2:1: mqtt.host") && noHost.contains("needs host"), noHost)
        let unknown = problems("[mqtt]\nhost = \"b\"\npasword_file = \"/x\"\n")
        XCTAssertTrue(unknown.contains("mqtt.pasword_file") && unknown.contains("password_file"), unknown)
    }

    func testAPasswordFileNeedsAUser() {
        let message = problems("[mqtt]\nhost = \"b\"\npassword_file = \"/etc/lifesignal/mqtt-password\"\n")
        XCTAssertTrue(message.contains("lifesignald.toml:3:1: mqtt.password_file"), message)
        XCTAssertTrue(message.contains("add username"), message)
    }
}
