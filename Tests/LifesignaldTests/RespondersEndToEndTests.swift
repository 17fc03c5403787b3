import ControlProtocol
import Foundation
import TestSupport
import XCTest

/// A person's device and a watcher, two real daemons on one real Mosquitto on 127.0.0.1: the
/// watcher that adds the person's pairing code appears in the person's `responders`; removing it
/// refuses its pings (across a restart of the person's device) until it is allowed again.
final class RespondersEndToEndTests: XCTestCase {
    func responders(_ person: DaemonHarness) throws -> RespondersReport {
        let result = try person.ctl(["responders", "--json"])
        guard result.exitCode == 0 else { throw HarnessError("responders failed: \(result.standardError)") }
        return try JSONDecoder().decode(RespondersReport.self, from: Data(result.standardOutput.utf8))
    }

    func gran(_ watcher: DaemonHarness) throws -> DependentItemReport? {
        let result = try watcher.ctl(["dependents", "--json"])
        guard result.exitCode == 0 else { throw HarnessError("dependents failed: \(result.standardError)") }
        return try JSONDecoder().decode(DependentsReport.self, from: Data(result.standardOutput.utf8)).dependents.first
    }

    func testAPairedWatcherIsListedAndOnceRemovedItsPingsAreRefusedUntilItIsAllowedAgain() throws {
        let broker = try MosquittoBroker()
        let person = try DependentsEndToEndTests.person(port: broker.port)
        try person.start()
        try person.waitForMQTT("connected")
        let before = try responders(person)
        XCTAssertEqual(before.responders, [])
        XCTAssertTrue(before.nobodyForMissedCheckIns, before.reach)
        XCTAssertTrue(before.reach.hasPrefix("NOBODY is told of a missed check-in."), before.reach)

        let watcher = try DependentsEndToEndTests.pairingWatcher(port: broker.port, name: "Anna")
        try watcher.start()
        try watcher.waitForMQTT("connected")
        let paired = try person.ctl(["pair", "--config", person.configPath, "--json"], addsSocket: false)
        XCTAssertEqual(paired.exitCode, 0, paired.standardError)
        let code = try JSONDecoder().decode(DependentsEndToEndTests.PairOutput.self, from: Data(paired.standardOutput.utf8))
        let added = try watcher.ctl(["dependents", "add", code.code, "--name", "Gran"])
        XCTAssertEqual(added.exitCode, 0, added.standardError)

        // The watcher's registration reaches the person's device: Anna is a responder, told of both.
        try person.waitUntil("the person's device lists Anna") { try self.responders(person).responders.count == 1 }
        let listed = try responders(person)
        XCTAssertEqual(listed.responders.map(\.name), ["Anna"])
        XCTAssertEqual(listed.responders.first?.role, "watcher device")
        XCTAssertEqual(listed.responders.first?.id, "hall-watcher")
        XCTAssertEqual(listed.responders.first?.told, ["missed_check_in"], "help alerts are off on this device")
        XCTAssertFalse(listed.nobodyForMissedCheckIns)
        XCTAssertTrue(listed.reach.hasPrefix("A missed check-in is told to: Anna (watcher device, over MQTT)."), listed.reach)
        let text = try person.ctl(["responders"])
        XCTAssertTrue(text.standardOutput.hasSuffix(listed.reach + "\n"), "the list ends with the reach line: \(text.standardOutput)")
        let shown = try person.ctl(["responders", "show", "anna"])
        XCTAssertTrue(shown.standardOutput.contains("path: watcher device, over MQTT"), shown.standardOutput)

        // Removed on the person's device: gone from the list, and the watcher hears it.
        let removed = try person.ctl(["responders", "remove", "Anna"])
        XCTAssertEqual(removed.exitCode, 0, removed.standardError)
        XCTAssertEqual(try responders(person).responders, [])
        XCTAssertEqual(try responders(person).removed.map(\.name), ["Anna"])
        try watcher.waitUntil("the watcher shows it was removed") {
            try self.gran(watcher)?.problem?.contains("removed this watcher") == true
        }

        // Its ping no longer reaches the person: the watcher says so instead of sending it, and a
        // ping signed with its id (as one sent before it heard) is refused, and the LEDs do not ask.
        let pinged = try watcher.ctl(["dependents", "ping", "Gran"])
        XCTAssertEqual(pinged.exitCode, 1)
        XCTAssertTrue(pinged.standardError.contains("their device removed this watcher"), pinged.standardError)
        try MQTTWatcher.publish(port: broker.port, topic: "lifesignal/mum/cmd/ask_if_ok",
                                payload: #"{"name":"Anna","watcher":"hall-watcher"}"#)
        try person.waitUntil("the person's device refuses the removed watcher's ping") {
            try person.status().mqtt?.lastRefusal?.contains("hall-watcher") == true
        }
        XCTAssertNotEqual(try person.status().indicator, "ping_pending")

        // Still removed after a restart of the person's device (kept in its store).
        XCTAssertEqual(person.stop(), 0)
        try person.start()
        try person.waitForMQTT("connected")
        XCTAssertEqual(try responders(person).removed.map(\.id), ["hall-watcher"])
        XCTAssertEqual(try responders(person).responders, [])

        // Allowed again: the watcher registers again, and its ping reaches the person.
        let allowed = try person.ctl(["responders", "allow", "anna"])
        XCTAssertEqual(allowed.exitCode, 0, allowed.standardError)
        try person.waitUntil("the person's device lists Anna again") { try self.responders(person).responders.count == 1 }
        try watcher.waitUntil("the watcher no longer shows the removal") { try self.gran(watcher)?.problem == nil }
        XCTAssertEqual(try watcher.ctl(["dependents", "ping", "Gran"]).exitCode, 0)
        try person.waitUntil("the person's device asks \"are you OK?\"") { try person.status().indicator == "ping_pending" }

        // The watcher restarts: it registers again at its connection, and is still listed.
        XCTAssertEqual(watcher.stop(), 0)
        try watcher.start()
        try watcher.waitForMQTT("connected")
        XCTAssertEqual(try responders(person).responders.map(\.name), ["Anna"])

        // A watcher refuses `responders`; a name nobody has is refused with the names there are.
        let onWatcher = try watcher.ctl(["responders"])
        XCTAssertEqual(onWatcher.exitCode, 1)
        XCTAssertTrue(onWatcher.standardError.contains("this is a watcher"), onWatcher.standardError)
        let unknown = try person.ctl(["responders", "remove", "Zed"])
        XCTAssertEqual(unknown.exitCode, 1)
        XCTAssertTrue(unknown.standardError.contains("no responder is called \"Zed\"; there are: Anna"), unknown.standardError)

        // The watcher stops following her: it leaves her list.
        XCTAssertEqual(try watcher.ctl(["dependents", "remove", "Gran"]).exitCode, 0)
        try person.waitUntil("the person's device no longer lists Anna") { try self.responders(person).responders.isEmpty }
        XCTAssertEqual(watcher.stop(), 0)
        XCTAssertEqual(person.stop(), 0)
    }
}
