import CheckInModels
import ControlProtocol
import DevServer
import DeviceAPI
import Foundation
import TestSupport
import XCTest

/// Responders' pings end to end: the real daemon long-polling the reference server over loopback.
extension UplinkEndToEndTests {
    private func pings(_ device: DaemonHarness) throws -> PingsReport {
        try device.decode(PingsReport.self, device.ctl(["pings", "--json"]))
    }

    /// A running daemon (checked in once) listening to a fresh dev server, and a ping from
    /// `responder` showing on its LEDs. The caller stops the server.
    private func pingedDevice(by responder: String) throws -> (DevServer, DaemonHarness, Ping) {
        let server = try makeServer(device: Self.deviceID, token: Self.token)
        let device = try makeDevice(url: server.baseURL)
        try device.start()
        try device.ctl(["check-in"])
        try device.waitUntil("the device is listening for pings") { try pings(device).listener == "listening" }
        let ping = try server.createPing(device: Self.deviceID, responderName: responder)
        try device.waitUntil("the ping pattern shows") { try device.status().indicator == "ping_pending" }
        return (server, device, ping)
    }

    func testAPingCreatedOnTheServerLightsThePingPatternAndAPressAnswersItOnce() throws {
        let (server, device, ping) = try pingedDevice(by: "Alice")
        defer { server.stop() }
        let status = try device.status()
        XCTAssertEqual(status.pings?.pending.map(\.responderName), ["Alice"])
        XCTAssertEqual(status.leds.filter(\.on).map(\.name).allSatisfy { ["green", "amber"].contains($0) }, true,
                       "only green and amber flash for a ping: \(status.leds)")
        let text = try device.ctl(["status"]).standardOutput
        XCTAssertTrue(text.contains("Pinged by Alice"), text)

        try device.ctl(["sim", "press", "--hold", "150ms"])
        try device.waitUntil("the press answered the ping") { try device.status().pings?.pending == [] }
        try device.waitUntil("the server has the answer") {
            try server.pings(device: Self.deviceID).first?.answeredAt != nil
        }
        try device.waitUntil("the answer is marked uploaded") { try pings(device).responsesWaiting == 0 }
        let stored = try server.storedPingResponses(device: Self.deviceID)
        XCTAssertEqual(stored.map(\.response.pingId), [ping.id])
        XCTAssertEqual(stored.map(\.receipts), [1], "sent once, stored once")
        let history = try device.decode([CheckInReport].self, device.ctl(["history", "--json"]))
        XCTAssertEqual(stored.first?.response.checkInId, history.first?.id, "the press's check-in answered it")
        XCTAssertTrue(device.log.contains("answered 1 ping"), device.log)
        XCTAssertEqual(try pings(device).pending, [])
        XCTAssertEqual(device.stop(), 0)
    }

    func testAnAnswerWhoseAcknowledgementIsLostIsStoredOnceAfterASIGKILLAndRestart() throws {
        let (server, device, ping) = try pingedDevice(by: "Bob")
        defer { server.stop() }

        // From now on the server stores what it gets but never answers: every acknowledgement is lost.
        server.inject(FaultUpdate(schedule: [Fault(.dropAfterStore, count: 100_000)]))
        try device.ctl(["check-in"])
        try device.waitUntil("the answer has reached the server and been sent again") {
            try server.storedPingResponses(device: Self.deviceID).first.map { $0.receipts >= 2 } ?? false
        }
        XCTAssertEqual(try pings(device).responsesWaiting, 1, "not acknowledged: still queued on the device")
        device.killHard()

        server.inject(FaultUpdate(clear: true))
        try device.start()
        try device.waitUntil("the answer is acknowledged after the restart") { try pings(device).responsesWaiting == 0 }
        let stored = try server.storedPingResponses(device: Self.deviceID)
        XCTAssertEqual(stored.map(\.response.pingId), [ping.id], "stored exactly once")
        XCTAssertNotEqual(try device.status().indicator, "ping_pending", "answered before the kill: not pending again")
        XCTAssertEqual(try pings(device).pending, [])
        XCTAssertEqual(device.stop(), 0)
    }

    func testAPendingPingStillShowsAfterARestart() throws {
        let (server, device, _) = try pingedDevice(by: "Carol")
        defer { server.stop() }
        XCTAssertEqual(device.stop(), 0, "the daemon stops promptly with a long poll held open")

        // The backend fails every request after the restart: the ping can only come from the device's store.
        server.inject(FaultUpdate(schedule: [Fault(.status, count: 100_000, status: 503)]))
        try device.start()
        try device.waitUntil("the stored ping shows again") { try device.status().indicator == "ping_pending" }
        XCTAssertEqual(try pings(device).pending.map(\.responderName), ["Carol"])
        XCTAssertEqual(device.stop(), 0)
    }
}
