import DeviceConfig
@testable import OperatorCLI
import TestSupport
import XCTest

/// doctor's MQTT checks against a real Mosquitto on 127.0.0.1: the broker takes the device's
/// credentials and a message on its topic; a wrong password, an unusable password file and a
/// broker that is not there are problems that say what to fix.
final class MQTTProbeTests: XCTestCase {
    func configuration(_ mqtt: MQTTConfiguration?) -> DeviceConfiguration {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.mqtt = mqtt
        return configuration
    }

    func testABrokerThatTakesTheCredentialsAndAMessageIsFine() throws {
        let broker = try MosquittoBroker()
        let folder = try TemporaryDirectory()
        let password = try folder.write("password", MosquittoBroker.password + "\n", mode: 0o600)
        let findings = MQTTProbe.check(configuration(MQTTConfiguration(
            host: "127.0.0.1", port: Int(broker.passwordPort), username: MosquittoBroker.username, passwordFile: password,
            deviceID: "hall")))
        XCTAssertEqual(findings.map(\.check), ["libmosquitto", "mqtt password", "mqtt broker"])
        XCTAssertEqual(findings.map(\.outcome), [.ok, .ok, .ok], findings.map(\.text).joined(separator: "\n"))
        XCTAssertTrue(findings[2].detail.contains("took a message on lifesignal/hall/doctor"), findings[2].detail)
        XCTAssertTrue(findings[2].detail.contains("homeassistant/device/hall/config"), findings[2].detail)
        XCTAssertTrue(broker.log.contains("lifesignal-hall-doctor"), "doctor connects with a client id of its own")
    }

    func testAWrongPasswordAnUnreadableFileAndNoBrokerAreProblemsWithAFix() throws {
        let broker = try MosquittoBroker()
        let folder = try TemporaryDirectory()
        let wrong = try folder.write("wrong", "nope\n", mode: 0o600)
        let refused = MQTTProbe.check(configuration(MQTTConfiguration(
            host: "127.0.0.1", port: Int(broker.passwordPort), username: MosquittoBroker.username, passwordFile: wrong)))
        XCTAssertEqual(refused.last?.outcome, .problem)
        XCTAssertTrue(refused.last?.fix?.contains("password_file") == true, refused.last?.text ?? "")

        let wide = try folder.write("wide", "nope\n", mode: 0o644)
        let unusable = MQTTProbe.check(configuration(MQTTConfiguration(host: "127.0.0.1", username: "u", passwordFile: wide)))
        XCTAssertEqual(unusable.map(\.check), ["libmosquitto", "mqtt password"])
        XCTAssertEqual(unusable.last?.outcome, .problem)
        XCTAssertTrue(unusable.last?.detail.contains("chmod 600") == true, unusable.last?.text ?? "")

        let nobody = MQTTProbe.check(configuration(MQTTConfiguration(host: "127.0.0.1", port: Int(try freeLoopbackPort()))))
        XCTAssertEqual(nobody.last?.outcome, .problem)
        XCTAssertTrue(nobody.last?.detail.contains("connection refused") == true, nobody.last?.text ?? "")
        XCTAssertTrue(nobody.last?.fix?.contains("start the broker") == true, nobody.last?.text ?? "")
    }

    func testWithoutMQTTThereIsNothingToCheck() {
        XCTAssertEqual(MQTTProbe.check(configuration(nil)), [])
    }
}
