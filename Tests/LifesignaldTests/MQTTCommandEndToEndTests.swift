import ControlProtocol
import Foundation
import TestSupport
import XCTest

/// Commands published on the broker (as Home Assistant's buttons and automations do) reach the
/// real daemon; refused ones change nothing and are counted and logged; the broker's credentials
/// are checked like the uplink's token.
final class MQTTCommandEndToEndTests: XCTestCase {
    func command(_ name: String, _ broker: MosquittoBroker, payload: String = "PRESS", retain: Bool = false) throws {
        try MQTTWatcher.publish(port: broker.port, topic: "lifesignal/e2e/cmd/\(name)", payload: payload, retain: retain)
    }

    func testAskIfOKIdentifyAndAnAllowedCheckInWorkAndEveryOtherCommandIsRefused() throws {
        let broker = try MosquittoBroker()
        // Left on the broker from earlier: replayed (retained) when the device subscribes, and refused.
        try command("check_in", broker, retain: true)
        let device = try DaemonHarness.mqtt(port: broker.port, extra: "remote_check_in = true")
        try device.start()
        try device.waitForMQTT("connected")
        try device.waitUntil("the retained command is refused") { try device.status().mqtt?.commandsRefused == 1 }
        XCTAssertNil(try device.status().lastCheckIn)
        let watcher = try MQTTWatcher(port: broker.port, topics: ["lifesignal/e2e/event/#"], in: device.scratch)

        try command("ask_if_ok", broker)
        try device.waitUntil("the device asks: a ping from Home Assistant") {
            try device.status().pings?.pending.map(\.responderName) == ["Home Assistant"]
        }
        XCTAssertEqual(try device.status().indicator, "ping_pending")

        try command("identify", broker, payload: "")
        try device.waitUntil("the LEDs show where the device is") { try device.status().indicator == "identify" }

        try command("check_in", broker)
        try device.waitUntil("checked in, recorded as MQTT, the ping answered") {
            let status = try device.status()
            return status.lastCheckIn?.source == "mqtt" && status.pings?.pending.isEmpty == true
        }
        try watcher.waitUntil("the check-in and the answered ping are events") { watcher.messages.count == 2 }
        XCTAssertEqual(watcher.messages.compactMap { $0.json?["event_type"] as? String }, ["check_in", "ping_answered"])
        XCTAssertEqual(watcher.messages.first?.json?["source"] as? String, "mqtt")

        // Refused besides the retained one: an oversized command, a malformed payload, an unknown
        // command, and a second remote check-in within the minute.
        try command("ask_if_ok", broker, payload: String(repeating: "x", count: 10_000))
        try command("identify", broker, payload: #"{"press":true}"#)
        try command("self_destruct", broker)
        try command("check_in", broker)
        try device.waitUntil("five commands refused") { try device.status().mqtt?.commandsRefused == 5 }
        let status = try device.status()
        XCTAssertEqual(status.mqtt?.commandsAccepted, 3)
        XCTAssertEqual(try device.decode([CheckInReport].self, device.ctl(["history", "--json"])).count, 1, "no further check-in")
        XCTAssertEqual(status.pings?.pending, [], "no further ping")
        XCTAssertTrue(status.mqtt?.lastRefusal?.contains("less than 1m ago") == true, status.mqtt?.lastRefusal ?? "")
        XCTAssertTrue(device.log.contains("MQTT command refused: check_in was a retained message"), device.log)
        XCTAssertTrue(device.log.contains("unknown command \"self_destruct\""), device.log)
        XCTAssertEqual(device.stop(), 0, "none of it disturbed the daemon")
    }

    func testRemoteCheckInIsRefusedUnlessTheConfigAllowsIt() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        try command("check_in", broker)
        try device.waitUntil("the command is refused") { try device.status().mqtt?.commandsRefused == 1 }
        XCTAssertNil(try device.status().lastCheckIn, "a motion sensor never checks in for a person")
        XCTAssertTrue(device.log.contains("remote check-in is off"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    func testAwayFromTheBrokerIsTakenOnlyWhereAllowedShowsInTheStateAndAwayEndEndsIt() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port, extra: "remote_away = true")
        try device.start()
        try device.waitForMQTT("connected")
        let watcher = try MQTTWatcher(port: broker.port, topics: ["lifesignal/e2e/state"], in: device.scratch)

        try command("away", broker, payload: "soon")
        try device.waitUntil("a payload that is not a duration is refused") { try device.status().mqtt?.commandsRefused == 1 }
        try command("away", broker, payload: "2h")
        try device.waitUntil("away, set from MQTT") { try device.status().away?.state == "away" }
        XCTAssertEqual(try device.status().away?.source, "mqtt")
        XCTAssertEqual(try device.status().indicator, "away")
        try watcher.waitUntil("the broker's state says away, and until when") {
            watcher.messages.last?.json?["away"] as? Bool == true && watcher.messages.last?.json?["away_until"] is String
        }
        XCTAssertEqual(watcher.messages.last?.json?["indicator"] as? String, "away")

        try command("away_end", broker)
        try device.waitUntil("away mode ended from MQTT") { try device.status().away?.state == "off" }
        try watcher.waitUntil("the broker's state says so") { watcher.messages.last?.json?["away"] as? Bool == false }
        XCTAssertEqual(device.stop(), 0)
    }

    func testRemoteAwayIsRefusedUnlessTheConfigAllowsIt() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        try command("away", broker, payload: "3d")
        try device.waitUntil("the command is refused") { try device.status().mqtt?.commandsRefused == 1 }
        XCTAssertEqual(try device.status().away?.state, "off", "whoever can publish to the broker cannot silence the device")
        XCTAssertTrue(device.log.contains("remote away mode is off"), device.log)
        XCTAssertEqual(device.stop(), 0)
    }

    func testWrongCredentialsAreAConditionNamingTheFixAndTheRightOnesConnect() throws {
        let broker = try MosquittoBroker()
        let folder = try TemporaryDirectory(prefix: "lifesignal-e2e-mqtt")
        let wrong = try folder.write("wrong", "not the password\n", mode: 0o600)
        let device = try DaemonHarness.mqtt(port: broker.passwordPort, extra: """
            username = "\(MosquittoBroker.username)"
            password_file = "\(wrong)"
            """)
        try device.start()
        try device.waitUntil("the refusal is a condition") {
            try device.status().conditions?.contains { $0.kind == "mqtt_unavailable" } == true
        }
        let status = try device.status()
        let condition = try XCTUnwrap(status.conditions?.first { $0.kind == "mqtt_unavailable" })
        XCTAssertTrue(condition.message.contains("refused the connection"), condition.message)
        XCTAssertTrue(condition.advice.contains("password_file"), condition.advice)
        XCTAssertFalse(condition.fault, "not a fault on the LEDs (not before the grace, at least)")
        XCTAssertFalse(condition.message.contains("not the password"), "the password never shows")
        XCTAssertEqual(status.mqtt?.lastErrorKind, "refused")
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0, "the device works on")
        XCTAssertEqual(device.stop(), 0)

        let right = try folder.write("right", MosquittoBroker.password + "\n", mode: 0o600)
        let fixed = try DaemonHarness.mqtt(port: broker.passwordPort, extra: """
            username = "\(MosquittoBroker.username)"
            password_file = "\(right)"
            """)
        try fixed.start()
        try fixed.waitForMQTT("connected")
        XCTAssertEqual(fixed.stop(), 0)
    }

    func testAPasswordFileOthersCanReadStopsTheStartWithEXCONFIG() throws {
        let folder = try TemporaryDirectory(prefix: "lifesignal-e2e-mqtt")
        let wide = try folder.write("password", "secret\n", mode: 0o644)
        let device = try DaemonHarness.mqtt(port: 1883, extra: "username = \"u\"\npassword_file = \"\(wide)\"")
        XCTAssertThrowsError(try device.start())
        XCTAssertEqual(device.daemon?.terminationStatus, 78, device.log)
        XCTAssertTrue(device.log.contains("the MQTT password file \(wide) has mode 0644"), device.log)
        XCTAssertTrue(device.log.contains("chmod 600"), device.log)
    }
}
