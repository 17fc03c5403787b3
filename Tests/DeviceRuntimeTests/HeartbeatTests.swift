import DevServer
import DeviceConfig
@testable import DeviceRuntime
import TestSupport
import XCTest

/// The whole device telling the reference backend it is alive, over loopback HTTP.
final class HeartbeatTests: BackendDeviceTestCase {
    override class var directoryPrefix: String { "lifesignal-heartbeat" }

    func testHeartbeatsReachTheBackendEveryPeriodAndAFailureShowsInStatusUntilTheNextOneIsDelivered() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend)
        configuration.uplink?.heartbeat = .milliseconds(50)
        let device = try await RunningDevice.started(configuration)
        self.device = device
        try await waitUntil("three heartbeats arrived") { self.backend.server.stats.heartbeats >= 3 }
        let heartbeatAnswer = try await device.status().uplink?.heartbeat
        var heartbeat = try XCTUnwrap(heartbeatAnswer)
        XCTAssertNotNil(heartbeat.lastSuccess)
        XCTAssertNil(heartbeat.lastError)
        XCTAssertEqual(heartbeat.endpoint, backend.baseURL)

        // Offline for one beat: the failure is reported, and the next period delivers again.
        backend.server.inject(FaultUpdate(schedule: [Fault(.drop, operation: "POST /v1/heartbeat")]))
        try await waitUntil("a heartbeat failed") { device.state.backendHeartbeat?.lastError != nil }
        let heartbeatAgain = try await device.status().uplink?.heartbeat
        heartbeat = try XCTUnwrap(heartbeatAgain)
        XCTAssertNotNil(heartbeat.lastError)
        let beforeRecovery = backend.server.stats.heartbeats
        try await waitUntil("a heartbeat is delivered again") {
            device.state.backendHeartbeat?.lastError == nil && self.backend.server.stats.heartbeats > beforeRecovery
        }
    }
}
