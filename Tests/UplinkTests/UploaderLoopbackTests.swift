import CheckInModels
import CheckInStoreLive
import DevServer
import DeviceClockLive
@testable import DeviceRuntime
import Foundation
import Logging
import UplinkClient
import UplinkLive
import XCTest

/// The uploader draining a real store to the reference server over loopback.
@MainActor
final class UploaderLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var database: CheckInDatabase!

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "uploader-test")
        database = try CheckInDatabase.open(path: backend.directory.appendingPathComponent("device/store.sqlite").path)
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        database = nil
        backend = nil
    }

    private func record(_ records: [CheckInRecord]) async throws {
        for record in records {
            _ = try await database.record(NewCheckIn(id: record.id, at: record.at, source: record.source))
        }
    }

    private func makeUploader(token: String = LoopbackBackend.token, batchSize: Int = 500) -> CheckInUploader {
        Uploader(client: backend.client(token: token, transport: transport), queue: .live(database), clock: .live(),
                 policy: RetryPolicy(initial: .milliseconds(20), cap: .milliseconds(100)), batchSize: batchSize,
                 logger: Logger(label: "uploader-test") { _ in SwiftLogNoOpLogHandler() })
    }

    func testABacklogDrainsInOrderInBatchesThroughTransientFaultsAndEachCheckInIsStoredOnce() async throws {
        let records = sampleCheckIns(1_200)
        try await record(records)
        backend.server.inject(FaultUpdate(schedule: [
            Fault(.status, status: 503), Fault(.drop), Fault(.dropAfterStore), Fault(.status, status: 429, retryAfterSeconds: 0),
        ]))
        let uploader = makeUploader(batchSize: 500)
        uploader.start()
        try await waitUntil("the queue is empty and the uploader idle") {
            try await database.pendingUploadCount() == 0 && uploader.state == .idle
        }
        uploader.stop()

        XCTAssertEqual(try backend.storedIDs(), records.map(\.id.description), "every check-in once, in order")
        let stats = backend.server.stats
        XCTAssertEqual(stats.largestBatch, 500)
        XCTAssertEqual(stats.faultsInjected, 4)
        XCTAssertEqual(stats.checkInsReceived, 1_200 + 500, "only the batch whose acknowledgement was lost went twice")
        XCTAssertEqual(uploader.report.state, "idle")
        XCTAssertEqual(uploader.report.lastResult, "ok")
        XCTAssertEqual(uploader.consecutiveFailures, 0)
        XCTAssertEqual(uploader.uploadedSinceStart, 1_200)
    }

    func testAPermanentFailureKeepsTheRowsQueuedAndIsRetriedOnlyOnTheNextCheckIn() async throws {
        try await record(sampleCheckIns(3))
        let uploader = makeUploader(token: "revoked-token")
        uploader.start()
        try await waitUntil("the uploader gives up") { uploader.state == .stopped }
        XCTAssertEqual(uploader.report.lastResult, "permanent_failure")
        XCTAssertNil(uploader.report.nextRetry)
        XCTAssertTrue(uploader.report.lastMessage?.contains("401") == true, uploader.report.lastMessage ?? "")
        let depth = try await database.pendingUploadCount()
        XCTAssertEqual(depth, 3, "the rows stay queued")
        XCTAssertEqual(backend.server.stats.deviceRequests, 1)

        uploader.itemStored()
        try await waitUntil("a new check-in makes one more attempt") { self.backend.server.stats.deviceRequests == 2 }
        try await waitUntil("the uploader gives up again") { uploader.state == .stopped }
        XCTAssertEqual(uploader.consecutiveFailures, 2)
        XCTAssertEqual(backend.server.stats.deviceRequests, 2, "no retry without a new check-in")
        uploader.stop()
    }

    func testTheServersRetryAfterIsHonouredAboveTheBackoff() async throws {
        try await record(sampleCheckIns(1))
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 429, retryAfterSeconds: 30)]))
        let uploader = makeUploader()  // its own backoff would retry within 0.1 s
        uploader.start()
        try await waitUntil("the uploader waits to retry") { uploader.state == .waitingToRetry }
        let report = uploader.report
        let attempt = try XCTUnwrap(report.lastAttempt.flatMap { WallTime(iso8601: $0) })
        let next = try XCTUnwrap(report.nextRetry.flatMap { WallTime(iso8601: $0) })
        XCTAssertGreaterThanOrEqual(next - attempt, .seconds(29), "not before Retry-After")
        XCTAssertEqual(report.lastResult, "transient_failure")
        XCTAssertEqual(backend.server.stats.deviceRequests, 1)
        uploader.stop()
    }

    func testATransientFailureSchedulesARetryThatIsReported() async throws {
        try await record(sampleCheckIns(1))
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, count: 2, status: 503)]))
        let uploader = makeUploader()
        uploader.start()
        try await waitUntil("uploaded after two failures") { try await database.pendingUploadCount() == 0 }
        XCTAssertEqual(backend.server.stats.deviceRequests, 3)
        XCTAssertEqual(uploader.report.lastResult, "ok")
        uploader.stop()
    }
}
