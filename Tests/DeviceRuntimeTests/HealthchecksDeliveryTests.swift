import CheckInModels
import ControlProtocol
import DevServer
import DeviceClock
import DeviceClockLive
import DeviceConfig
import DeviceFeature
import DeviceLive
@testable import DeviceRuntime
import TestSupport
import XCTest

/// The whole device pinging a healthchecks.io-compatible check (the reference server's) for every
/// check-in, and its heartbeat check, over loopback HTTP.
final class HealthchecksDeliveryTests: BackendDeviceTestCase {
    static let check = "5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
    static let pings = "POST /ping/\(check)"
    override class var directoryPrefix: String { "lifesignal-healthchecks" }

    private func start(_ configuration: DeviceConfiguration) async throws -> RunningDevice {
        let running = try await RunningDevice.started(configuration)
        device = running
        return running
    }

    private func pendingPings(_ device: RunningDevice) async throws -> Int {
        let queue = try await device.queue()
        return try XCTUnwrap(queue.healthchecks).depth
    }

    func testEveryCheckInIsPingedOnceInOrderWithItsIDThroughFaultsAndTheBackendQueueIsLeftAlone() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        configuration.ping(backend, check: Self.check)
        let device = try await start(configuration)
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, operation: Self.pings),
                                                     Fault(.drop, operation: Self.pings)]))
        var records: [CheckInReport] = []
        for _ in 0..<3 { records.append(try await device.checkIn()) }
        try await waitUntil("every check-in was pinged") {
            (try await pendingPings(device)) == 0 && device.state.healthchecksUpload?.status == .idle
        }
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.count, 3, "each check-in once: the two faults were retried")
        XCTAssertEqual(Set(pings.map(\.check)), [Self.check])
        XCTAssertEqual(pings.map(\.kind), ["success", "success", "success"])
        for (ping, record) in zip(pings, records) {
            XCTAssertTrue(ping.body.contains(record.id), ping.body)
        }
        XCTAssertEqual(backend.server.stats.faultsInjected, 2)
        let backendQueueDepth = try await device.status().queueDepth
        XCTAssertEqual(backendQueueDepth, 3, "without [uplink], the backend's own queue keeps them")
    }

    func testEachTargetHasItsOwnDeliveryStateSoOneRefusingDoesNotHoldUpTheOther() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend)
        configuration.ping(backend, check: Self.check)
        // The check does not exist (healthchecks answers 404): permanent, for the pings only.
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, count: 1_000, status: 404, operation: Self.pings)]))
        let device = try await start(configuration)
        var records: [String] = []
        for _ in 0..<2 { records.append(try await device.checkIn().id) }
        try await waitUntil("the pings stop") { device.state.healthchecksUpload?.status == .stopped }
        try await waitUntil("the backend has every check-in") { (try await device.queue().depth) == 0 }
        XCTAssertEqual(try backend.storedIDs(), records)
        let queue = try await device.queue()
        XCTAssertEqual(queue.healthchecks?.depth, 2, "still queued for the check that refused")
        let message = queue.healthchecks?.state?.lastMessage ?? ""
        XCTAssertTrue(message.contains("404"), message)
        XCTAssertFalse(message.contains(Self.check), "the ping URL is a secret: shortened in \(message)")
        XCTAssertTrue(device.state.conditions.contains { $0.kind == .uploadRefused && !$0.isFault }, "\(device.state.conditions)")
    }

    func testCheckInsFromBeforeTheCheckWasConfiguredAreNotPinged() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try await configuration.prefill(sampleCheckIns(2))  // from when the device had no [healthchecks]
        configuration.ping(backend, check: Self.check)
        let device = try await start(configuration)
        let new = try await device.checkIn()
        try await waitUntil("the new check-in was pinged") { (try await pendingPings(device)) == 0 && !self.backend.server.healthchecksPings.isEmpty }
        XCTAssertEqual(backend.server.healthchecksPings.count, 1)
        XCTAssertTrue(backend.server.healthchecksPings.first?.body.contains(new.id) == true)
    }

    func testACheckInDeliveredLateGoesToTheLogEndpointSoItCannotMakeTheCheckLookFresh() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        configuration.ping(backend, check: Self.check, lateAfter: .seconds(60))
        let now = DeviceClock.live().now()
        let old = CheckInRecord(id: .random(), at: now.advanced(by: .seconds(-3600)), source: .button)
        let otherBoot = CheckInRecord(id: .random(), at: DeviceInstant(wall: now.wall, uptime: .seconds(5), bootID: "an-earlier-boot",
                                                                       wallClockSynchronized: false), source: .button)
        let fresh = CheckInRecord(id: .random(), at: now, source: .cli)
        try await configuration.prefill([old, otherBoot, fresh], registeringDeliveryTarget: StoreClients.healthchecksTarget)
        let device = try await start(configuration)
        try await waitUntil("all three were delivered") { (try await pendingPings(device)) == 0 }
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.map(\.kind), ["log", "log", "success"])
        XCTAssertTrue(pings.first?.body.contains("delivered late") == true, pings.first?.body ?? "")
    }

    func testTheHeartbeatCheckIsPingedWithTheQueueDepthAndShownShortened() async throws {
        var configuration = DeviceConfiguration.forTests(in: directory)
        configuration.ping(backend, check: nil, heartbeat: "\(HealthchecksProject.devPingKey)/lifesignal-heartbeat")
        let device = try await start(configuration)
        try await waitUntil("the heartbeat check was pinged") { !self.backend.server.healthchecksPings.isEmpty }
        let ping = try XCTUnwrap(backend.server.healthchecksPings.first)
        XCTAssertEqual(ping.check, "\(HealthchecksProject.devPingKey)/lifesignal-heartbeat")
        XCTAssertEqual(ping.kind, "success")
        XCTAssertTrue(ping.body.contains("check-ins not yet delivered: 0"), ping.body)
        let reportAnswer = try await device.status().healthchecks
        let report = try XCTUnwrap(reportAnswer)
        XCTAssertEqual(report.heartbeat?.endpoint, "\(backend.baseURL)/…beat", "shortened: the ping URL is a secret")
    }
}
