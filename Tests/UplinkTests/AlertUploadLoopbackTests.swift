import CheckInModels
import CheckInStoreLive
import DevServer
import DeviceAPI
import DeviceClockLive
@testable import DeviceRuntime
import Foundation
import Logging
import UplinkClient
import UplinkLive
import XCTest

/// Help alerts over loopback: the live client, the reference server's de-duplication, and the
/// generic uploader draining the alerts table through faults; the check-in uploader's queue head.
@MainActor
final class AlertUploadLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var database: CheckInDatabase!

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "alert-test")
        database = try CheckInDatabase.open(path: backend.directory.appendingPathComponent("device/store.sqlite").path)
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        database = nil
        backend = nil
    }

    private var logger: Logger { Logger(label: "alert-test") { _ in SwiftLogNoOpLogHandler() } }
    private let fastRetries = RetryPolicy(initial: .milliseconds(20), cap: .milliseconds(100))

    private func storedAlert(source: AlertSource = .button) async throws -> AlertRecord {
        let at = DeviceInstant(wall: WallTime(microsecondsSinceEpoch: 1_795_000_000_123_456), uptime: .microseconds(4_200_000),
                               bootID: "alert-boot", wallClockSynchronized: true)
        return try await database.recordAlert(AlertRecord(id: .random(), at: at, source: source))
    }

    func testTheServerStoresAnAlertOncePerIdWithEveryField() async throws {
        let client = backend.client(transport: transport)
        let alert = try await storedAlert(source: .cli)
        let first = await client.sendAlert(alert)
        XCTAssertEqual(try first.get(), [alert.id])
        let second = await client.sendAlert(alert)
        XCTAssertEqual(try second.get(), [alert.id], "a resend is acknowledged again")

        let stored = try backend.server.storedAlerts(device: LoopbackBackend.device)
        XCTAssertEqual(stored.count, 1)
        XCTAssertEqual(stored.first?.alert, UploadedAlert(alert))
        XCTAssertEqual(stored.first?.alert.wallTime, "2026-11-18T11:06:40.123456Z")
        XCTAssertEqual(stored.first?.alert.uptimeMicroseconds, 4_200_000)
        XCTAssertEqual(stored.first?.alert.source, "cli")
        XCTAssertEqual(stored.first?.receipts, 2)
        XCTAssertEqual(backend.server.stats.alertsReceived, 2)
        XCTAssertEqual(try backend.server.storedCheckIns(device: LoopbackBackend.device), [], "alerts are not check-ins")
    }

    func testAnInvalidAlertIsRefusedPermanentlyWithTheServersMessage() async throws {
        let client = backend.client(transport: transport)
        var alert = try await storedAlert()
        alert.at.bootID = ""
        let result = await client.sendAlert(alert)
        guard case let .failure(failure) = result else { return XCTFail("an alert without a boot id must be refused") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 400)
        XCTAssertTrue(failure.message.contains("bootId"), failure.message)
        XCTAssertEqual(try backend.server.storedAlerts(), [])
    }

    func testTheAlertUploaderDeliversThroughFaultsExactlyOnceAndReportsTheAcknowledgement() async throws {
        let alert = try await storedAlert()
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503), Fault(.drop), Fault(.dropAfterStore)]))
        let uploader = Uploader<AlertRecord>(client: backend.client(transport: transport), queue: .alerts(database),
                                             clock: .live(), policy: fastRetries, logger: logger)
        var acknowledged: [AlertID] = []
        var transientFailures = 0
        uploader.onEvent = { event in
            switch event {
            case let .acknowledged(ids): acknowledged += ids
            case let .failed(failure): if failure.kind == .transient { transientFailures += 1 }
            case .oldestPending: break
            }
        }
        uploader.start()
        try await waitUntil("the alert is acknowledged") { acknowledged == [alert.id] }
        uploader.stop()

        let pending = try await database.pendingAlertCount()
        XCTAssertEqual(pending, 0)
        XCTAssertEqual(transientFailures, 3)
        let stored = try backend.server.storedAlerts()
        XCTAssertEqual(stored.map(\.alert.id), [alert.id.description], "stored once, though it arrived twice")
        XCTAssertEqual(stored.first?.receipts, 2)
        XCTAssertEqual(backend.server.stats.requestsByOperation["POST /v1/alerts"], 4)
    }

    func testARefusedAlertStaysQueuedAndTheRefusalIsReported() async throws {
        _ = try await storedAlert()
        let uploader = Uploader<AlertRecord>(client: backend.client(token: "revoked", transport: transport),
                                             queue: .alerts(database), clock: .live(), policy: fastRetries, logger: logger)
        var refusals: [String] = []
        uploader.onEvent = { event in
            if case let .failed(failure) = event, failure.kind == .permanent { refusals.append(failure.message) }
        }
        uploader.start()
        try await waitUntil("the uploader gives up") { uploader.state == .stopped }
        uploader.stop()
        XCTAssertEqual(refusals.count, 1)
        XCTAssertTrue(refusals.first?.contains("401") == true, refusals.first ?? "")
        let pending = try await database.pendingAlertCount()
        XCTAssertEqual(pending, 1, "the alert stays queued")
    }

    func testTheCheckInUploaderReportsTheOldestUnacknowledgedCheckInAsTheQueueDrains() async throws {
        let records = sampleCheckIns(3)
        for record in records {
            _ = try await database.record(NewCheckIn(id: record.id, at: record.at, source: record.source))
        }
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503)]))
        let uploader = CheckInUploader(client: backend.client(transport: transport), queue: .live(database), clock: .live(),
                                       policy: fastRetries, batchSize: 2, logger: logger)
        var heads: [CheckInID?] = []
        uploader.onEvent = { event in
            if case let .oldestPending(record) = event { heads.append(record?.id) }
        }
        uploader.start()
        try await waitUntil("the queue is empty") { heads.last == .some(nil) }
        uploader.stop()
        XCTAssertEqual(heads, [records[0].id, records[2].id, nil], "each head once, though the first batch was read twice")
    }
}
