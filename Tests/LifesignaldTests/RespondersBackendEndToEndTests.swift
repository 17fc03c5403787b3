import ControlProtocol
import DevServer
import DeviceAPI
import Foundation
import TestSupport
import XCTest

/// A person's device with the reference backend and its healthchecks subset, a real daemon each
/// for the person and a watcher: `lifesignalctl responders` lists the watcher that follows her
/// through the backend, the contact the family added there, and the healthchecks integration her
/// checks notify, and follows a contact being removed.
final class RespondersBackendEndToEndTests: XCTestCase {
    func responders(_ person: DaemonHarness) throws -> RespondersReport {
        let result = try person.ctl(["responders", "--json"])
        guard result.exitCode == 0 else { throw HarnessError("responders failed: \(result.standardError)") }
        return try JSONDecoder().decode(RespondersReport.self, from: Data(result.standardOutput.utf8))
    }

    func testTheBackendsPeopleAndTheChecksIntegrationsAreListedWithWhatEachIsToldOf() throws {
        let backend = try LoopbackBackend(tokens: ["token-mum": "mum-device", "token-kitchen": "kitchen"],
                                          names: ["mum-device": "Mum", "kitchen": "Anna's kitchen"])
        addTeardownBlock { backend.stop() }
        let server = backend.server
        server.addHealthchecksIntegration(HealthchecksChannel(id: "6f1c8a2e-6a55-4c5e-9d1a-2f0b7c3d9e41", name: "Family phone",
                                                              kind: "sms"))
        try server.setContact(ResponderContact(name: "Bob", channels: ["app", "sms"]), id: "bob", device: "mum-device")
        let person = try DaemonHarness(config: """

            \(try uplinkSection(to: backend.baseURL, token: "token-mum"))

            [healthchecks]
            api_key_file = "\(try tokenFile(HealthchecksProject.devReadWriteKey))"
            api_url = "\(backend.baseURL)"
            retry_max = "1s"
            timeout = "5s"
            """)
        try person.start()
        let watcher = try DaemonHarness(config: """

            \(try uplinkSection(to: backend.baseURL, token: "token-kitchen"))

            [device]
            role = "watcher"
            name = "Anna"
            """)
        try watcher.start()
        let paired = try person.ctl(["pair", "--config", person.configPath, "--source", "backend", "--json"], addsSocket: false)
        XCTAssertEqual(paired.exitCode, 0, paired.standardError)
        let code = try JSONDecoder().decode(DependentsEndToEndTests.PairOutput.self, from: Data(paired.standardOutput.utf8))
        XCTAssertEqual(try watcher.ctl(["dependents", "add", code.code]).exitCode, 0)

        // Each `responders` asks the sources first: the checks exist once the device made them.
        try person.waitUntil("the person's device lists the backend's people and the integration", timeout: 30) {
            try self.responders(person).responders.count == 3
        }
        let report = try responders(person)
        XCTAssertEqual(report.responders.map(\.name), ["Anna's kitchen", "Bob", "Family phone"])
        XCTAssertEqual(report.responders.map(\.role), ["watcher device", "backend contact", "healthchecks integration"])
        XCTAssertEqual(report.responders.map(\.path), ["watcher device through the backend: device",
                                                       "contact through the backend: app, sms", "healthchecks sms"])
        XCTAssertEqual(report.sourceProblems, [])
        XCTAssertTrue(report.reach.hasPrefix("A missed check-in is told to: Anna's kitchen (watcher device through the backend: "
                                             + "device); Bob (contact through the backend: app, sms); Family phone (healthchecks sms)."),
                      report.reach)
        let removal = try person.ctl(["responders", "remove", "Bob"])
        XCTAssertEqual(removal.exitCode, 1)
        XCTAssertTrue(removal.standardError.contains("remove them in the LifeSignal app"), removal.standardError)

        // The family removes Bob in the app: the next `responders` no longer lists him.
        try server.removeContact(id: "bob", device: "mum-device")
        XCTAssertEqual(try responders(person).responders.map(\.name), ["Anna's kitchen", "Family phone"])
        XCTAssertEqual(watcher.stop(), 0)
        XCTAssertEqual(person.stop(), 0)
    }
}
