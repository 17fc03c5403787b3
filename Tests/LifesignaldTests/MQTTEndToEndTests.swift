import ControlProtocol
import Foundation
import TestSupport
import XCTest

/// The real daemon against a real Mosquitto on 127.0.0.1, watched through Mosquitto's own
/// clients as Home Assistant would: discovery on start and when Home Assistant comes online,
/// retained availability and state, the last will when the daemon is killed, events in order
/// after the broker was away, and the device untouched by whatever the broker does.
final class MQTTEndToEndTests: XCTestCase {
    let discoveryTopic = "homeassistant/device/e2e/config"
    let availabilityTopic = "lifesignal/e2e/availability"
    let stateTopic = "lifesignal/e2e/state"

    func testTheDeviceAppearsInHomeAssistantWithRetainedAvailabilityAndStateAndAnnouncesItselfAgain() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        let watcher = try MQTTWatcher(port: broker.port, topics: ["homeassistant/#", "lifesignal/e2e/#"], in: device.scratch)
        try watcher.waitUntil("the retained discovery, availability and state arrive") {
            !watcher.messages(on: self.discoveryTopic).isEmpty
                && watcher.messages(on: self.availabilityTopic).last?.payload == "online"
                && watcher.messages(on: self.stateTopic).last?.json?["indicator"] as? String == "never_checked_in"
        }
        for topic in [discoveryTopic, availabilityTopic, stateTopic] {
            XCTAssertEqual(watcher.messages(on: topic).first?.retained, true, "\(topic) is retained for whoever comes later")
        }

        // What Home Assistant checks before it takes the device: an origin; a platform and unique id
        // for every component (a component given as its platform alone is a removal); names.
        let discovery = try XCTUnwrap(watcher.messages(on: discoveryTopic).first?.json)
        XCTAssertEqual((discovery["o"] as? [String: Any])?["name"] as? String, "lifesignald")
        XCTAssertEqual(((discovery["dev"] as? [String: Any])?["identifiers"] as? [String]), ["lifesignal_e2e"])
        XCTAssertEqual(discovery["availability_topic"] as? String, availabilityTopic)
        let components = try XCTUnwrap(discovery["cmps"] as? [String: [String: Any]])
        XCTAssertEqual(Set(components.keys), ["indicator", "last_check_in", "next_deadline", "overdue", "help_alert", "fault",
                                              "ping_pending", "oldest_not_uploaded", "connection", "check_in_event",
                                              "help_alert_event", "ask_if_ok", "identify", "check_in", "away", "on_battery",
                                              "power_event", "away_for", "away_end"])
        for (key, component) in components {
            XCTAssertNotNil(component["p"] as? String, "\(key) has a platform")
            if key == "check_in" || key == "away_for" {
                XCTAssertEqual(component.count, 1, "remote check-in and remote away are off: their entities are removed")
                continue
            }
            XCTAssertEqual(component["unique_id"] as? String, "lifesignal_e2e_\(key)")
            XCTAssertNotNil(component["name"] as? String, "\(key) has a name (else Home Assistant calls it \"MQTT Sensor\")")
        }

        // A check-in: an event tells of it, and the retained state follows.
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0)
        try watcher.waitUntil("the check-in's event and the new state") {
            watcher.messages(on: "lifesignal/e2e/event/check_in").count == 1
                && watcher.messages(on: self.stateTopic).last?.json?["phase"] as? String == "checked_in"
        }
        let event = try XCTUnwrap(watcher.messages(on: "lifesignal/e2e/event/check_in").first)
        XCTAssertFalse(event.retained, "events are never retained (Home Assistant would replay them)")
        XCTAssertEqual(event.json?["event_type"] as? String, "check_in")
        XCTAssertEqual(event.json?["source"] as? String, "cli")
        XCTAssertEqual(event.json?["check_in_id"] as? String, try device.status().lastCheckIn?.id)
        let state = try XCTUnwrap(watcher.messages(on: stateTopic).last?.json)
        XCTAssertEqual(state["last_check_in_source"] as? String, "cli")
        XCTAssertNotNil(state["next_deadline"] as? String)

        // Home Assistant restarts and says so: it is told about the device again.
        let announced = watcher.messages(on: discoveryTopic).count
        try MQTTWatcher.publish(port: broker.port, topic: "homeassistant/status", payload: "online")
        try watcher.waitUntil("discovery is sent again") { watcher.messages(on: self.discoveryTopic).count == announced + 1 }

        // Stopping says offline (retained) before a clean disconnect.
        XCTAssertEqual(device.stop(), 0)
        try watcher.waitUntil("the device says offline") { watcher.messages(on: self.availabilityTopic).last?.payload == "offline" }
    }

    func testTheBrokerPublishesTheLastWillWhenTheDaemonIsKilled() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        let watcher = try MQTTWatcher(port: broker.port, topics: [availabilityTopic], in: device.scratch)
        try watcher.waitUntil("online") { watcher.messages.last?.payload == "online" }
        device.killHard()
        try watcher.waitUntil("the broker publishes the last will") { watcher.messages.last?.payload == "offline" }
        let later = try MQTTWatcher(port: broker.port, topics: [availabilityTopic], in: device.scratch)
        try later.waitUntil("a later subscriber is told offline (retained)") {
            later.messages.last == MQTTWatcher.Message(topic: self.availabilityTopic, payload: "offline", retained: true)
        }
    }

    func testEventsThatHappenWhileTheBrokerIsAwayArePublishedInOrderOnceItIsBack() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        // A persistent session: what is published while the watcher waits for the broker is kept for it.
        let watcher = try MQTTWatcher(port: broker.port, topics: ["lifesignal/e2e/event/#"], session: "e2e-watcher", in: device.scratch)
        broker.stop()
        try device.waitUntil("the device knows the broker is away") { try device.status().mqtt?.state != "connected" }

        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0, "the broker away does not stop a check-in")
        XCTAssertEqual(try device.ctl(["sim", "press", "--hold", "3500ms"]).exitCode, 0)  // a long press
        XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0)
        try device.waitUntil("three events wait for the broker") { try device.status().mqtt?.eventsWaiting == 3 }
        XCTAssertTrue(try device.status().conditions?.contains { $0.kind == "mqtt_unavailable" } == true,
                      "status says the broker is away")
        try device.waitUntil("the LEDs say checked in (no fault within the grace)") { try device.status().indicator == "checked_in" }

        try broker.start()
        try device.waitForMQTT("connected")
        try watcher.waitUntil("the three events arrive") { watcher.messages.count >= 3 }
        let events = watcher.messages.compactMap(\.json)
        XCTAssertEqual(events.map { $0["event_type"] as? String }, ["check_in", "long_press", "check_in"], "in the order they happened")
        XCTAssertEqual(watcher.messages.map(\.topic), ["lifesignal/e2e/event/check_in", "lifesignal/e2e/event/help_alert",
                                                       "lifesignal/e2e/event/check_in"])
        XCTAssertEqual(Set(events.compactMap { $0["id"] as? String }).count, 3)
        let times = events.compactMap { $0["at"] as? String }
        XCTAssertEqual(times, times.sorted())
        try device.waitUntil("nothing waits any more") { try device.status().mqtt?.eventsWaiting == 0 }
        XCTAssertFalse(try device.status().conditions?.contains { $0.kind == "mqtt_unavailable" } ?? true, "the condition cleared")
        XCTAssertEqual(device.stop(), 0)
    }

    func testABrokerKilledMidSessionIsAConditionTheButtonDoesNotNoticeAndTheDeviceReconnects() throws {
        let broker = try MosquittoBroker()
        let device = try DaemonHarness.mqtt(port: broker.port)
        try device.start()
        try device.waitForMQTT("connected")
        try broker.kill()
        try device.waitUntil("the lost connection is a condition") {
            try device.status().conditions?.contains { $0.kind == "mqtt_unavailable" } == true
        }
        // Lost, and soon refused while the broker is down (a retry came within the backoff's 1 s).
        let away = try XCTUnwrap(device.status().mqtt)
        XCTAssertTrue(["lost", "unreachable"].contains(away.lastErrorKind), away.lastError ?? "")
        XCTAssertTrue(device.log.contains("lost the MQTT connection"), device.log)
        XCTAssertEqual(try device.ctl(["sim", "press", "--hold", "150ms"]).exitCode, 0)
        try device.waitUntil("the press is stored and acknowledged") { try device.status().lastCheckIn?.source == "button" }

        try broker.start()
        try device.waitForMQTT("connected")
        try device.waitUntil("the press's event reached the broker") { try device.status().mqtt?.eventsWaiting == 0 }
        let watcher = try MQTTWatcher(port: broker.port, topics: [stateTopic], in: device.scratch)
        try watcher.waitUntil("the broker holds the state with the press made while it was down") {
            watcher.messages.last?.json?["last_check_in_source"] as? String == "button"
        }
        XCTAssertFalse(try device.status().conditions?.contains { $0.kind == "mqtt_unavailable" } ?? true)
        XCTAssertEqual(device.stop(), 0)
    }

    func testADaemonWhoseBrokerNeverAnswersChecksInAsAlwaysWhileTheAttemptHangs() throws {
        let silent = try SilentListener()
        // A long keep-alive: the attempt stays unanswered for the whole test.
        let device = try DaemonHarness.mqtt(port: silent.port, keepAlive: "120s")
        try device.start()
        try device.waitForMQTT("connecting")
        for _ in 0..<10 {
            XCTAssertEqual(try device.ctl(["check-in"]).exitCode, 0, "acknowledged without waiting for the broker")
        }
        let status = try device.status()
        XCTAssertEqual(status.mqtt?.state, "connecting", "the broker has still not answered")
        XCTAssertEqual(status.mqtt?.eventsWaiting, 10)
        XCTAssertEqual(try device.decode([CheckInReport].self, device.ctl(["history", "--json"])).count, 10)
        XCTAssertEqual(device.stop(), 0, "a hanging attempt does not hold up the shutdown")
    }
}
