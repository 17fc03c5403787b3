import ControlProtocol
import Foundation
import TestSupport
import XCTest

/// A person's device and a watcher, two real daemons on one real Mosquitto on 127.0.0.1: the
/// watcher's LEDs follow the person's state, its press says "I'm on it" on the person's device,
/// its ping lights the person's device and their press answers it, its sort order survives a
/// restart, and a killed person's device turns silent after the heartbeat allowance.
final class DependentsEndToEndTests: XCTestCase {
    static func person(port: UInt16) throws -> DaemonHarness {
        try DaemonHarness(interval: "8s", reminder: "3s", config: """

            [mqtt]
            host = "127.0.0.1"
            port = \(port)
            device_id = "mum"
            keep_alive = "5s"
            retry_max = "1s"
            """)
    }

    static func watcher(port: UInt16, storePath: String? = nil) throws -> DaemonHarness {
        try DaemonHarness(config: """

            [mqtt]
            host = "127.0.0.1"
            port = \(port)
            device_id = "kitchen"
            keep_alive = "5s"
            retry_max = "1s"

            [device]
            role = "watcher"
            name = "Anna"

            [leds]
            order = ["green", "amber", "red", "mum"]

            [leds.mum]
            colour = "white"
            line = "GPIO19"

            [dependents]
            confirmation_window = "2s"

            [dependents.mum]
            name = "Mum"
            mqtt = "lifesignal/mum"
            heartbeat = "2s"
            led = "mum"
            """, storePath: storePath)
    }

    /// A watcher with nobody to look after yet, for a pairing code (`hall-watcher` on the broker).
    static func pairingWatcher(port: UInt16, name: String? = nil) throws -> DaemonHarness {
        try DaemonHarness(config: """

            [mqtt]
            host = "127.0.0.1"
            port = \(port)
            device_id = "hall-watcher"
            keep_alive = "5s"
            retry_max = "1s"

            [device]
            role = "watcher"
            \(name.map { "name = \"\($0)\"" } ?? "")
            """)
    }

    /// What Mum's own light on the watcher plays.
    func light(_ watcher: DaemonHarness) throws -> String? {
        try watcher.status().leds.first { $0.name == "mum" }?.pattern
    }

    func dependents(_ watcher: DaemonHarness) throws -> DependentsReport {
        let result = try watcher.ctl(["dependents", "--json"])
        guard result.exitCode == 0 else { throw HarnessError("dependents failed: \(result.standardError)") }
        return try JSONDecoder().decode(DependentsReport.self, from: Data(result.standardOutput.utf8))
    }

    func mum(_ watcher: DaemonHarness, named name: String = "Mum") throws -> DependentItemReport? {
        try dependents(watcher).dependents.first { $0.name == name }
    }

    func testTheWatcherFollowsThePersonAnswersPingsSaysImOnItAndHearsSilence() throws {
        let broker = try MosquittoBroker()
        let person = try Self.person(port: broker.port)
        try person.start()
        try person.waitForMQTT("connected")
        let watcher = try Self.watcher(port: broker.port)
        try watcher.start()
        try watcher.waitForMQTT("connected")

        // The person checks in: the watcher's glance is calm.
        XCTAssertEqual(try person.ctl(["check-in"]).exitCode, 0)
        try watcher.waitUntil("the watcher shows Mum checked in") {
            try self.mum(watcher)?.status == "checked_in" && watcher.status().indicator == "dependents_ok"
        }
        XCTAssertEqual(try light(watcher), "on", "Mum's own light is steady while she is checked in")
        XCTAssertEqual(try watcher.status().role, "watcher")

        // The person goes overdue: the watcher's LEDs say so.
        try watcher.waitUntil("the watcher shows Mum overdue", timeout: 30) {
            try watcher.status().indicator == "dependent_overdue"
        }
        XCTAssertEqual(try person.status().phase, "overdue")
        XCTAssertEqual(try light(watcher), "200ms on, 200ms off, 200ms on, 400ms off", "and her light says overdue")

        // The watcher's press: "I'm on it", shown on the person's device.
        XCTAssertEqual(try watcher.ctl(["sim", "press"]).exitCode, 0)
        try person.waitUntil("the person's device shows Anna is on the way") {
            let status = try person.status()
            return status.helpComing == "Anna" && status.indicator == "help_coming"
        }
        XCTAssertEqual(try mum(watcher)?.onItSent, true)

        // The person checks in: calm on both, and the "on it" is over.
        XCTAssertEqual(try person.ctl(["check-in"]).exitCode, 0)
        try watcher.waitUntil("the watcher is calm again") { try watcher.status().indicator == "dependents_ok" }
        XCTAssertNil(try person.status().helpComing)

        // A ping from the watcher lights the person's device; their press answers it, which the watcher shows.
        let pinged = try watcher.ctl(["dependents", "ping", "mum"])
        XCTAssertEqual(pinged.exitCode, 0, pinged.standardError)
        try person.waitUntil("the person's device asks \"are you OK?\"") { try person.status().indicator == "ping_pending" }
        try watcher.waitUntil("the watcher sees the ping pending") { try self.mum(watcher)?.pingPending == true }
        XCTAssertEqual(try person.ctl(["sim", "press"]).exitCode, 0)
        try watcher.waitUntil("the watcher shows the answer") {
            let mum = try self.mum(watcher)
            return mum?.pingAnsweredAt != nil && mum?.pingSentAt == nil && mum?.pingPending == false
        }

        // The sort order survives a restart of the watcher.
        XCTAssertEqual(try watcher.ctl(["dependents", "sort", "deadline"]).exitCode, 0)
        XCTAssertEqual(watcher.stop(), 0)
        try watcher.start()
        XCTAssertEqual(try dependents(watcher).sort, "deadline")
        try watcher.waitForMQTT("connected")
        try watcher.waitUntil("the restarted watcher hears Mum again") { try self.mum(watcher)?.online == true }

        // The person's device is killed: the broker's last will says offline, and after the
        // heartbeat allowance the watcher shows Mum silent.
        person.killHard()
        try watcher.waitUntil("the watcher shows Mum silent") {
            try self.mum(watcher)?.status == "silent" && watcher.status().indicator == "dependent_silent"
        }
        XCTAssertEqual(watcher.stop(), 0)
    }

    func testAPersonsDeviceRefusesDependentsRequestsAndAWatcherRefusesUnknownNamesAndBadCodes() throws {
        let broker = try MosquittoBroker()
        let person = try Self.person(port: broker.port)
        try person.start()
        let refused = try person.ctl(["dependents"])
        XCTAssertEqual(refused.exitCode, 1)
        XCTAssertTrue(refused.standardError.contains("this is a person's device ([device] role = \"person\")"), refused.standardError)
        XCTAssertEqual(person.stop(), 0)

        let watcher = try Self.watcher(port: broker.port)
        try watcher.start()
        let unknown = try watcher.ctl(["dependents", "ping", "Dad"])
        XCTAssertEqual(unknown.exitCode, 1)
        XCTAssertTrue(unknown.standardError.contains("no dependent is called \"Dad\"; there are: Mum"), unknown.standardError)
        let badCode = try watcher.ctl(["dependents", "add", "hello\u{1B}[2J"])
        XCTAssertEqual(badCode.exitCode, 1)
        XCTAssertTrue(badCode.standardError.contains("not a LifeSignal pairing code"), badCode.standardError)
        XCTAssertFalse(badCode.standardError.contains("\u{1B}"), "control characters from the argument are escaped")
        let configured = try watcher.ctl(["dependents", "remove", "Mum"])
        XCTAssertEqual(configured.exitCode, 1)
        XCTAssertTrue(configured.standardError.contains("is in the config file"), configured.standardError)
        let badSort = try watcher.ctl(["dependents", "sort", "age"])
        XCTAssertEqual(badSort.exitCode, 64)
        let checkIn = try watcher.ctl(["check-in"])
        XCTAssertEqual(checkIn.exitCode, 1, "a watcher has no countdown of its own")
        XCTAssertTrue(checkIn.standardError.contains("this is a watcher"), checkIn.standardError)
        XCTAssertEqual(watcher.stop(), 0)
    }

    struct PairOutput: Decodable {
        var code: String
        var source: String
        var address: String
    }

    func testAPairingCodeFromThePersonsDeviceAddsThemOverMQTTAndTheyAreStillThereAfterARestart() throws {
        let broker = try MosquittoBroker()
        let person = try Self.person(port: broker.port)
        try person.start()
        try person.waitForMQTT("connected")
        let watcher = try Self.pairingWatcher(port: broker.port)
        try watcher.start()
        try watcher.waitForMQTT("connected")

        let paired = try person.ctl(["pair", "--config", person.configPath, "--json"], addsSocket: false)
        XCTAssertEqual(paired.exitCode, 0, paired.standardError)
        let code = try JSONDecoder().decode(PairOutput.self, from: Data(paired.standardOutput.utf8))
        XCTAssertEqual(code.source, "mqtt")
        XCTAssertEqual(code.address, "lifesignal/mum")
        let added = try watcher.ctl(["dependents", "add", code.code.lowercased(), "--name", "Gran"])
        XCTAssertEqual(added.exitCode, 0, added.standardError)
        XCTAssertEqual(try watcher.ctl(["dependents", "add", code.code]).exitCode, 1, "the same person twice is refused")

        XCTAssertEqual(try person.ctl(["check-in"]).exitCode, 0)
        try watcher.waitUntil("the watcher shows Gran checked in") { try self.mum(watcher, named: "Gran")?.status == "checked_in" }
        XCTAssertEqual(watcher.stop(), 0)
        try watcher.start()
        try watcher.waitUntil("the restarted watcher still follows Gran") {
            try self.mum(watcher, named: "Gran")?.status == "checked_in"
        }
        let removed = try watcher.ctl(["dependents", "remove", "gran"])
        XCTAssertEqual(removed.exitCode, 0, removed.standardError)
        XCTAssertNil(try mum(watcher, named: "Gran"))
        XCTAssertEqual(watcher.stop(), 0)
        XCTAssertEqual(person.stop(), 0)
    }
}

