import CheckInModels
import ControlProtocol
import DevServer
import DeviceConfig
@testable import DeviceRuntime
import TestSupport
import UploadFeature
import XCTest

/// The whole device uploading its check-ins to the reference backend over loopback HTTP: a real
/// store, libcurl, the server's faults aimed at the check-in upload only (the device's other loops
/// talk to the same server meanwhile).
final class CheckInUploadTests: BackendDeviceTestCase {
    static let upload = "POST /v1/check-ins"
    override class var directoryPrefix: String { "lifesignal-upload" }

    private func configuration(token: String = LoopbackBackend.token, batchSize: Int = 500) throws -> DeviceConfiguration {
        var configuration = DeviceConfiguration.forTests(in: directory)
        try configuration.upload(to: backend, token: token, batchSize: batchSize)
        return configuration
    }

    private func start(_ configuration: DeviceConfiguration) async throws -> RunningDevice {
        let running = try await RunningDevice.started(configuration)
        device = running
        return running
    }

    private var uploadRequests: Int { backend.server.stats.requestsByOperation[Self.upload] ?? 0 }

    func testABacklogDrainsInOrderInBatchesThroughTransientFaultsAndEachCheckInIsStoredOnce() async throws {
        let records = sampleCheckIns(1_200)
        let configuration = try configuration(batchSize: 500)
        try await configuration.prefill(records)
        backend.server.inject(FaultUpdate(schedule: [
            Fault(.status, status: 503, operation: Self.upload), Fault(.drop, operation: Self.upload),
            Fault(.dropAfterStore, operation: Self.upload), Fault(.status, status: 429, retryAfterSeconds: 0, operation: Self.upload),
        ]))
        let device = try await start(configuration)
        try await waitUntil("the queue is empty and the uploader idle") {
            device.state.checkInUpload?.status == .idle && device.state.checkInUpload?.uploadedSinceStart == 1_200
        }

        XCTAssertEqual(try backend.storedIDs(), records.map(\.id.description), "every check-in once, in order")
        let stats = backend.server.stats
        XCTAssertEqual(stats.largestBatch, 500)
        XCTAssertEqual(stats.faultsInjected, 4)
        XCTAssertEqual(stats.checkInsReceived, 1_200 + 500, "only the batch whose acknowledgement was lost went twice")
        let uplinkAnswer = try await device.status().uplink
        let uplink = try XCTUnwrap(uplinkAnswer)
        XCTAssertEqual(uplink.state, "idle")
        XCTAssertEqual(uplink.lastResult, "ok")
        XCTAssertEqual(uplink.consecutiveFailures, 0)
        XCTAssertEqual(uplink.uploadedSinceStart, 1_200)
        let depth = try await device.queue().depth
        XCTAssertEqual(depth, 0)
        let failures = device.actions.filter {
            if case let .checkInUpload(.delegate(.failed(failure))) = $0 { failure.kind == .transient } else { false }
        }
        XCTAssertEqual(failures.count, 4, "each fault was met by the upload and retried")
    }

    func testAPermanentFailureKeepsTheRowsQueuedAndIsRetriedOnlyOnTheNextCheckIn() async throws {
        let configuration = try configuration(token: "revoked-token")
        try await configuration.prefill(sampleCheckIns(3))
        let device = try await start(configuration)
        try await waitUntil("the uploader gives up") { device.state.checkInUpload?.status == .stopped }
        let uplinkAnswer = try await device.status().uplink
        let uplink = try XCTUnwrap(uplinkAnswer)
        XCTAssertEqual(uplink.lastResult, "permanent_failure")
        XCTAssertNil(uplink.nextRetry)
        XCTAssertTrue(uplink.lastMessage?.contains("401") == true, uplink.lastMessage ?? "")
        let depth = try await device.queue().depth
        XCTAssertEqual(depth, 3, "the rows stay queued")
        XCTAssertEqual(uploadRequests, 1)
        let refusal = device.state.conditions.first { $0.kind == .uploadRefused }
        XCTAssertNotNil(refusal, "\(device.state.conditions)")
        XCTAssertEqual(refusal?.isFault, false, "a refused upload is listed, but the check-ins are kept: not a fault")

        try await device.checkIn()
        try await waitUntil("a new check-in makes one more attempt") { self.uploadRequests == 2 }
        try await waitUntil("the uploader gives up again") {
            device.state.checkInUpload?.status == .stopped && device.state.checkInUpload?.consecutiveFailures == 2
        }
        XCTAssertEqual(uploadRequests, 2, "no retry without a new check-in")
        let depthAfter = try await device.queue().depth
        XCTAssertEqual(depthAfter, 4)
    }

    func testTheServersRetryAfterIsHonouredAboveTheBackoffAndAStopDoesNotWaitItOut() async throws {
        let configuration = try configuration()  // its own backoff would retry within 0.1 s
        try await configuration.prefill(sampleCheckIns(1))
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 429, retryAfterSeconds: 30, operation: Self.upload)]))
        let device = try await start(configuration)
        try await waitUntil("the uploader waits to retry") { device.state.checkInUpload?.status == .waitingToRetry }
        let uplinkAnswer = try await device.status().uplink
        let uplink = try XCTUnwrap(uplinkAnswer)
        let attempt = try XCTUnwrap(uplink.lastAttempt.flatMap { WallTime(iso8601: $0) })
        let next = try XCTUnwrap(uplink.nextRetry.flatMap { WallTime(iso8601: $0) })
        XCTAssertGreaterThanOrEqual(next - attempt, .seconds(29), "not before Retry-After")
        XCTAssertEqual(uplink.lastResult, "transient_failure")
        XCTAssertEqual(uploadRequests, 1)
        await device.stop()  // returns: the retry's wait is cancelled, not waited out
        self.device = nil
        XCTAssertEqual(uploadRequests, 1)
    }

    func testARefusedCheckInLeavesTheQueueWithTheServersMessageAndTheRestMovesOn() async throws {
        let records = sampleCheckIns(5)
        let refused = records[1]
        let configuration = try configuration(batchSize: 2)
        try await configuration.prefill(records)
        backend.server.inject(FaultUpdate(rejectCheckInIDs: [refused.id.description]))
        let device = try await start(configuration)
        try await waitUntil("the queue is empty") {
            guard device.state.checkInUpload?.status == .idle else { return false }
            return try await device.queue().depth == 0
        }
        XCTAssertEqual(try backend.storedIDs(), records.filter { $0.id != refused.id }.map(\.id.description))
        let queue = try await device.queue()
        XCTAssertEqual(queue.refusedCount, 1)
        XCTAssertEqual(queue.refused?.map(\.checkIn.id), [refused.id.description])
        XCTAssertTrue(queue.refused?.first?.message.contains("rejectCheckInIDs") == true, "\(queue.refused ?? [])")
        XCTAssertEqual(queue.uplink?.refusedSinceStart, 1)
        XCTAssertEqual(queue.uplink?.lastResult, "ok")

        // The refused row does not block later check-ins, and is not sent again.
        let later = try await device.checkIn()
        try await waitUntil("the later check-in is uploaded") { try self.backend.storedIDs().contains(later.id) }
        XCTAssertEqual(backend.server.stats.checkInsRejected, 1, "the refused check-in was sent once")
        let refusedCount = try await device.queue().refusedCount
        XCTAssertEqual(refusedCount, 1)
    }

    func testANetworkChangeCutsTheBackoffShort() async throws {
        let configuration = try configuration()
        try await configuration.prefill(sampleCheckIns(1))
        // Retry-After: one hour, far beyond any test: only the network change can bring the retry.
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, retryAfterSeconds: 3600, operation: Self.upload)]))
        let device = try await start(configuration)
        try await waitUntil("the uploader waits out its backoff") { device.state.checkInUpload?.status == .waitingToRetry }
        try await waitUntil("the device watches the network") { device.network.isWatched }
        device.network.changed()
        try await waitUntil("uploaded at once") { (try await device.queue().depth) == 0 }
        XCTAssertEqual(uploadRequests, 2)
    }

    func testTheOldestUnacknowledgedCheckInIsReportedOnceEachAsTheQueueDrains() async throws {
        let records = sampleCheckIns(3)
        let configuration = try configuration(batchSize: 2)
        try await configuration.prefill(records)
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, operation: Self.upload)]))
        let device = try await start(configuration)
        try await waitUntil("the queue is empty, and reported so") {
            device.state.checkInUpload?.uploadedSinceStart == 3 && device.state.checkInUpload?.oldestPending == .empty
        }
        let heads = device.actions.compactMap { action -> CheckInID?? in
            if case let .checkInUpload(.delegate(.oldestPendingChanged(record))) = action { return .some(record?.id) }
            return nil
        }
        XCTAssertEqual(heads, [records[0].id, records[2].id, nil], "each head once, though the first batch was read twice")
        XCTAssertNil(device.state.checkIn.uploadBacklog.oldestPendingSince, "the check-in feature knows nothing waits")
        let oldestNotUploaded = try await device.status().oldestNotUploaded
        XCTAssertNil(oldestNotUploaded)
    }
}
