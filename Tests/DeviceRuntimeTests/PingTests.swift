import ControlProtocol
import DevServer
import DeviceConfig
@testable import DeviceRuntime
import TestSupport
import XCTest

/// The whole device hearing a responder's ping from the reference backend's long poll, keeping it
/// in its store, showing it, and answering it with the next check-in, over loopback HTTP.
final class PingTests: BackendDeviceTestCase {
    override class var directoryPrefix: String { "lifesignal-ping" }

    func testAPingIsStoredThenShownAndTheNextCheckInAnswersItOnce() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend)
        let device = try await RunningDevice.started(configuration)
        self.device = device
        try await device.checkIn()
        try await waitUntil("the device holds a long poll") {
            device.state.pingListener?.status.rawValue == "listening"
                && self.backend.server.stats.requestsByOperation["GET /v1/pings"] ?? 0 >= 1
        }
        let ping = try backend.server.createPing(device: LoopbackBackend.device, responderName: "Alice")
        try await waitUntil("the ping shows") { (try await device.status().indicator) == "ping_pending" }
        let stored = try await device.storeClients.checkIns.pendingPings()
        XCTAssertEqual(stored.map(\.id), [ping.id], "kept in the store before it is shown")
        let pingsAnswer = try await device.request(ControlRequest(.pings)).pings
        let pings = try XCTUnwrap(pingsAnswer)
        XCTAssertEqual(pings.pending.map(\.responderName), ["Alice"])

        let answer = try await device.checkIn()
        try await waitUntil("the answer reaches the server") {
            try self.backend.server.pings(device: LoopbackBackend.device).first?.answeredAt != nil
        }
        let responses = try backend.server.storedPingResponses(device: LoopbackBackend.device)
        XCTAssertEqual(responses.map(\.response.pingId), [ping.id])
        XCTAssertEqual(responses.map(\.response.checkInId), [answer.id], "answered by that check-in")
        XCTAssertEqual(responses.map(\.receipts), [1])
        try await waitUntil("nothing waits to be sent") {
            (try await device.request(ControlRequest(.pings)).pings?.responsesWaiting) == 0
        }
        let after = try await device.status()
        XCTAssertNotEqual(after.indicator, "ping_pending")
        XCTAssertEqual(after.pings?.pending.count ?? 0, 0)
        let pendingPings = try await device.storeClients.checkIns.pendingPings()
        XCTAssertEqual(pendingPings, [])
    }
}
