import CheckInModels
import CheckInStoreLive
import DevServer
import DeviceClock
import DeviceClockLive
@testable import DeviceRuntime
import Foundation
import Logging
import UplinkClient
import UplinkLive
import XCTest

/// Per-item rejection, heartbeats, healthchecks pings and the network-change retry, each against
/// the reference server over loopback and a real store.
@MainActor
final class DeliveryLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var database: CheckInDatabase!
    let clock = DeviceClock.live()
    let logger = Logger(label: "delivery-test") { _ in SwiftLogNoOpLogHandler() }
    static let check = "5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "delivery-test")
        database = try CheckInDatabase.open(path: backend.directory.appendingPathComponent("device/store.sqlite").path)
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        database = nil
        backend = nil
    }

    /// Check-ins pressed now (this boot, this clock), as the device would record them.
    private func recordNow(_ count: Int) async throws -> [CheckInRecord] {
        var records: [CheckInRecord] = []
        for _ in 0..<count {
            records.append(try await database.record(NewCheckIn(id: .random(), at: clock.now(), source: .button)))
        }
        return records
    }

    private func backendUploader(policy: RetryPolicy = RetryPolicy(initial: .milliseconds(20), cap: .milliseconds(100)),
                                 batchSize: Int = 500) -> CheckInUploader {
        Uploader(client: backend.client(transport: transport), queue: .live(database), clock: clock, policy: policy,
                 batchSize: batchSize, logger: logger)
    }

    private func healthchecksUploader(check: String = DeliveryLoopbackTests.check, lateAfter: Duration = .seconds(600)) -> CheckInUploader {
        Uploader(client: .healthchecks(url: "\(backend.server.baseURL)/ping/\(check)", timeout: .seconds(5),
                                       lateAfter: lateAfter, now: clock.now, transport: transport),
                 queue: .deliveries(to: DeliveryServices.healthchecksTarget, database), clock: clock,
                 policy: RetryPolicy(initial: .milliseconds(20), cap: .milliseconds(100)), batchSize: 20, logger: logger)
    }

    // MARK: Per-item rejection

    func testARejectedCheckInIsFlaggedWithTheServersMessageAndTheRestOfTheQueueMovesOn() async throws {
        let records = try await recordNow(5)
        let refused = records[1]
        backend.server.inject(FaultUpdate(rejectCheckInIDs: [refused.id.description]))
        let uploader = backendUploader(batchSize: 2)
        uploader.start()
        try await waitUntil("the queue is empty") { try await database.pendingUploadCount() == 0 && uploader.state == .idle }

        XCTAssertEqual(try backend.storedIDs(), records.filter { $0.id != refused.id }.map(\.id.description))
        let flagged = try await database.refusedUploads(limit: 10)
        XCTAssertEqual(flagged.map(\.record.id), [refused.id])
        XCTAssertTrue(flagged[0].message.contains("rejectCheckInIDs"), flagged[0].message)
        XCTAssertEqual(uploader.report.refusedSinceStart, 1)
        XCTAssertEqual(uploader.report.lastResult, "ok")

        // The refused row does not block later check-ins, and is not sent again.
        let later = try await recordNow(1)
        uploader.itemStored()
        try await waitUntil("the later check-in is uploaded") { try self.backend.storedIDs().contains(later[0].id.description) }
        XCTAssertEqual(backend.server.stats.checkInsRejected, 1, "the refused check-in was sent once")
        let refusedCount = try await database.refusedUploadCount()
        XCTAssertEqual(refusedCount, 1)
        uploader.stop()
    }

    func testTheClientReturnsRejectionsByIDWithTheirMessages() async throws {
        let records = sampleCheckIns(3)
        backend.server.inject(FaultUpdate(rejectCheckInIDs: [records[2].id.description]))
        let outcome = try await backend.client(transport: transport).uploadBatch(records).get()
        XCTAssertEqual(outcome.acknowledged, Array(records.prefix(2).map(\.id)))
        XCTAssertEqual(outcome.refused.map(\.id), [records[2].id])
        XCTAssertTrue(outcome.refused[0].message.contains("checkIns[2]"), outcome.refused[0].message)
    }

    // MARK: Heartbeat

    func testHeartbeatsReachTheBackendEveryPeriodAndFailuresShowInTheReport() async throws {
        _ = try await recordNow(2)
        let queue = UploadQueue<CheckInRecord>.live(database)
        let sender = HeartbeatSender(client: backend.client(transport: transport), period: .milliseconds(50), clock: clock,
                                     queueDepth: { (try? await queue.depth()) ?? -1 }, logger: logger)
        sender.start()
        try await waitUntil("three heartbeats arrived") { self.backend.server.stats.heartbeats >= 3 }
        XCTAssertNotNil(sender.report.lastSuccess)
        XCTAssertNil(sender.report.lastError)
        XCTAssertEqual(sender.report.endpoint, backend.server.baseURL)

        // Offline: the failure is reported, and the next period delivers again.
        backend.server.inject(FaultUpdate(schedule: [Fault(.drop, count: 1)]))
        try await waitUntil("a heartbeat failed") { sender.report.lastError != nil }
        let beforeRecovery = backend.server.stats.heartbeats
        try await waitUntil("a heartbeat is delivered again") {
            sender.report.lastError == nil && self.backend.server.stats.heartbeats > beforeRecovery
        }
        sender.stop()
    }

    func testAHeartbeatWithAWrongTokenIsAFailureNamingTheStatus() async throws {
        let client = backend.client(token: "wrong", transport: transport)
        guard case let .failure(failure) = await client.sendHeartbeat(DeviceHeartbeat(bootID: "b", uptime: .seconds(5), queueDepth: 0)) else {
            return XCTFail("a heartbeat with a wrong token was accepted")
        }
        XCTAssertEqual(failure.httpStatus, 401)
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("/v1/heartbeat"), failure.message)
    }

    // MARK: Healthchecks

    func testEveryCheckInIsPingedOnceWithItsIDAndPressTimeInOrder() async throws {
        let pinger = healthchecksUploader()
        try await database.registerDeliveryTarget(DeliveryServices.healthchecksTarget)
        let records = try await recordNow(3)
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503), Fault(.drop)]))
        pinger.start()
        try await waitUntil("every check-in was pinged") {
            try await database.pendingDeliveryCount(target: DeliveryServices.healthchecksTarget) == 0 && pinger.state == .idle
        }
        pinger.stop()
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.count, 3, "each check-in once: the two faults were retried")
        XCTAssertEqual(Set(pings.map(\.check)), [Self.check])
        XCTAssertEqual(pings.map(\.kind), ["success", "success", "success"])
        for (ping, record) in zip(pings, records) {
            XCTAssertTrue(ping.body.contains(record.id.description), ping.body)
            XCTAssertTrue(ping.body.contains("pressed: \(record.at.wall.iso8601)"), ping.body)
        }
        let backendDepth = try await database.pendingUploadCount()
        XCTAssertEqual(backendDepth, 3, "the backend's own queue is untouched by the healthchecks deliveries")
    }

    func testEachTargetHasItsOwnDeliveryStateSoOneDownDoesNotHoldUpTheOther() async throws {
        let pinger = healthchecksUploader(check: "no-such-check")
        try await database.registerDeliveryTarget(DeliveryServices.healthchecksTarget)
        let records = try await recordNow(2)
        // The check does not exist (healthchecks answers 404): permanent for the pings only.
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 404)]))
        pinger.start()
        try await waitUntil("the pings stop") { pinger.state == .stopped }
        let uploader = backendUploader()
        uploader.start()
        try await waitUntil("the backend has every check-in") { try await database.pendingUploadCount() == 0 }
        uploader.stop()
        pinger.stop()
        XCTAssertEqual(try backend.storedIDs(), records.map(\.id.description))
        let pending = try await database.pendingDeliveries(target: DeliveryServices.healthchecksTarget, limit: 10)
        XCTAssertEqual(pending.map(\.id), records.map(\.id), "still queued for the check that failed")
        XCTAssertTrue(pinger.report.lastMessage?.contains("404") == true, pinger.report.lastMessage ?? "")
        XCTAssertFalse(pinger.report.lastMessage?.contains("no-such-check") == true, "the ping URL is a secret: shortened")
    }

    func testCheckInsFromBeforeTheTargetWasConfiguredAreNotPinged() async throws {
        _ = try await recordNow(2)
        try await database.registerDeliveryTarget(DeliveryServices.healthchecksTarget)
        let after = try await recordNow(1)
        let pending = try await database.pendingDeliveries(target: DeliveryServices.healthchecksTarget, limit: 10)
        XCTAssertEqual(pending.map(\.id), after.map(\.id))
    }

    func testACheckInDeliveredLateGoesToTheLogEndpointSoItCannotMakeTheCheckLookFresh() async throws {
        let pinger = healthchecksUploader(lateAfter: .seconds(60))
        try await database.registerDeliveryTarget(DeliveryServices.healthchecksTarget)
        let now = clock.now()
        let old = NewCheckIn(id: .random(), at: now.advanced(by: .seconds(-3600)), source: .button)
        let otherBoot = NewCheckIn(id: .random(), at: DeviceInstant(wall: now.wall, uptime: .seconds(5), bootID: "an-earlier-boot",
                                                                    wallClockSynchronized: false), source: .button)
        let fresh = NewCheckIn(id: .random(), at: now, source: .cli)
        for new in [old, otherBoot, fresh] { _ = try await database.record(new) }
        pinger.start()
        try await waitUntil("all three were delivered") {
            try await database.pendingDeliveryCount(target: DeliveryServices.healthchecksTarget) == 0
        }
        pinger.stop()
        XCTAssertEqual(backend.server.healthchecksPings.map(\.kind), ["log", "log", "success"])
        XCTAssertTrue(backend.server.healthchecksPings[0].body.contains("delivered late"), backend.server.healthchecksPings[0].body)
    }

    func testTheHeartbeatCheckIsPingedWithUptimeAndQueueDepth() async throws {
        let client = UplinkClient.healthchecks(url: "\(backend.server.baseURL)/ping/key123/lifesignal-heartbeat",
                                               timeout: .seconds(5), lateAfter: .seconds(60), now: clock.now, transport: transport)
        let sender = HeartbeatSender(client: client, period: .seconds(3600), clock: clock, queueDepth: { 7 }, logger: logger)
        sender.start()
        try await waitUntil("the heartbeat check was pinged") { !self.backend.server.healthchecksPings.isEmpty }
        sender.stop()
        let ping = try XCTUnwrap(backend.server.healthchecksPings.first)
        XCTAssertEqual(ping.check, "key123/lifesignal-heartbeat")
        XCTAssertEqual(ping.kind, "success")
        XCTAssertTrue(ping.body.contains("queued check-ins: 7"), ping.body)
        XCTAssertEqual(sender.report.endpoint, "\(backend.server.baseURL)/…beat", "shortened: the ping URL is a secret")
    }

    // MARK: The network coming back

    func testANetworkChangeCutsTheBackoffShort() async throws {
        _ = try await recordNow(1)
        // Retry-After: one hour, far beyond any test: only the network change can bring the retry.
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, retryAfterSeconds: 3600)]))
        let uploader = backendUploader()
        uploader.start()
        try await waitUntil("the uploader waits out its backoff") { uploader.state == .waitingToRetry }
        uploader.networkChanged()
        try await waitUntil("uploaded at once") { try await database.pendingUploadCount() == 0 }
        XCTAssertEqual(backend.server.stats.deviceRequests, 2)
        uploader.stop()
    }
}
