import ControlProtocol
import DevServer
import Foundation
import TestSupport
import XCTest

/// A person's device and a watcher through the reference backend's dependents routes, two real
/// daemons and `lifesignalctl pair` / `dependents add`: the watcher follows the person's
/// check-ins and deadline, its press says "I'm on it" (a notification on the person's device),
/// its ping reaches the person's device through the ping long poll and their press answers it.
final class DependentsBackendEndToEndTests: XCTestCase {
    struct PairOutput: Decodable {
        var code: String
        var source: String
        var address: String
    }

    func testAWatcherPairedThroughTheBackendFollowsPingsAndSaysImOnIt() throws {
        let backend = try LoopbackBackend(tokens: ["token-mum": "mum-device", "token-kitchen": "kitchen"],
                                          names: ["mum-device": "Mum", "kitchen": "Anna's kitchen"])
        addTeardownBlock { backend.stop() }
        let person = try DaemonHarness(interval: "8s", reminder: "3s", config: """

            \(try uplinkSection(to: backend.baseURL, token: "token-mum"))
            notifications_refresh = "10s"
            """)
        try person.start()
        let watcher = try DaemonHarness(config: """

            \(try uplinkSection(to: backend.baseURL, token: "token-kitchen"))

            [device]
            role = "watcher"
            name = "Anna"

            [dependents]
            poll_interval = "1s"
            """)
        try watcher.start()

        // Pairing: the person's device prints the code; the watcher takes it.
        let paired = try person.ctl(["pair", "--config", person.configPath, "--source", "backend", "--json"], addsSocket: false)
        XCTAssertEqual(paired.exitCode, 0, paired.standardError)
        let code = try JSONDecoder().decode(PairOutput.self, from: Data(paired.standardOutput.utf8))
        XCTAssertEqual(code.source, "backend")
        XCTAssertEqual(code.address, "mum-device")
        let added = try watcher.ctl(["dependents", "add", code.code])
        XCTAssertEqual(added.exitCode, 0, added.standardError)
        XCTAssertTrue(added.standardOutput.contains("Mum"), added.standardOutput)

        // The person checks in: the watcher is calm; then the deadline passes: overdue.
        XCTAssertEqual(try person.ctl(["check-in"]).exitCode, 0)
        try watcher.waitUntil("the watcher shows Mum checked in", timeout: 30) {
            try watcher.status().indicator == "dependents_ok"
        }
        try watcher.waitUntil("the watcher shows Mum overdue", timeout: 30) {
            try watcher.status().indicator == "dependent_overdue"
        }

        // The watcher's press: "I'm on it", which the person's device hears of as a notification.
        XCTAssertEqual(try watcher.ctl(["sim", "press"]).exitCode, 0)
        try person.waitUntil("the person's device has the notification", timeout: 30) {
            let shown = try person.ctl(["notifications", "--json"]).standardOutput
            return shown.contains("Anna is on it")
        }

        // A ping from the watcher reaches the person's device; their press answers it.
        XCTAssertEqual(try person.ctl(["check-in"]).exitCode, 0)
        let pinged = try watcher.ctl(["dependents", "ping", "Mum"])
        XCTAssertEqual(pinged.exitCode, 0, pinged.standardError)
        try person.waitUntil("the person's device asks \"are you OK?\"", timeout: 30) {
            try person.status().indicator == "ping_pending"
        }
        XCTAssertEqual(try person.ctl(["sim", "press"]).exitCode, 0)
        try watcher.waitUntil("the watcher shows the answer", timeout: 30) {
            let report = try JSONDecoder().decode(DependentsReport.self,
                                                  from: Data(try watcher.ctl(["dependents", "--json"]).standardOutput.utf8))
            return report.dependents.first?.pingAnsweredAt != nil
        }

        // Removing unfollows on the backend too: the list is empty, and adding again works.
        XCTAssertEqual(try watcher.ctl(["dependents", "remove", "Mum"]).exitCode, 0)
        let after = try JSONDecoder().decode(DependentsReport.self,
                                             from: Data(try watcher.ctl(["dependents", "--json"]).standardOutput.utf8))
        XCTAssertEqual(after.dependents, [])
        XCTAssertEqual(try watcher.ctl(["dependents", "add", code.code, "--name", "Mother"]).exitCode, 0)
        XCTAssertEqual(watcher.stop(), 0)
        XCTAssertEqual(person.stop(), 0)
    }
}
