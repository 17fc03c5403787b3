import CheckInModels
import TestSupport
import UplinkClient
import XCTest

/// The uplink's interface: how an HTTP status is classified (retry or give up), what a client that
/// does not offer an operation answers, and the test values that report every call.
final class UplinkClientTests: XCTestCase {
    func testHTTPStatusesAreClassifiedAsRFC9110Suggests() {
        XCTAssertEqual([408, 429, 500, 502, 503, 504].map(UplinkFailure.kind(ofHTTPStatus:)), Array(repeating: .transient, count: 6))
        XCTAssertEqual([400, 401, 403, 404, 409, 413, 422].map(UplinkFailure.kind(ofHTTPStatus:)), Array(repeating: .permanent, count: 7))
    }

    func testABatchUploadDefaultsToTheCheckInUploadWithNoRefusals() async throws {
        let id = CheckInID(high: 7, low: 7)
        let client = UplinkClient(endpoint: "target", uploadCheckIns: { _ in .success([id]) })
        let outcome = try await client.uploadBatch([]).get()
        XCTAssertEqual(outcome, UploadOutcome(acknowledged: [id]))
    }

    func testAnOperationAClientDoesNotOfferIsRefusedForGoodSayingSo() async {
        let client = UplinkClient(endpoint: "healthchecks", uploadCheckIns: { _ in .success([]) })
        guard case let .failure(failure) = await client.fetchSettings() else { return XCTFail("settings from a target without them") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("not available"), failure.message)
        guard case let .failure(ping) = await client.pendingPings(nil, .zero) else { return XCTFail("pings from a target without them") }
        XCTAssertEqual(ping.kind, .permanent, "never retried as if the network were down")
    }

    func testTheFailingClientAndNetworkWatcherReportEveryCall() async {
        let client = UplinkClient.failing()
        let alert = AlertRecord(id: .init(high: 1, low: 1), at: DeviceInstant(wall: WallTime(microsecondsSinceEpoch: 0), uptime: .zero,
                                                                              bootID: "b", wallClockSynchronized: false), source: .cli)
        let messages = await unexpectedCalls {
            _ = await client.uploadCheckIns([])
            _ = await client.fetchSettings()
            _ = await client.pendingPings(nil, .zero)
            _ = await client.sendAlert(alert)
            _ = await client.uploadBatch([])
            _ = await client.sendHeartbeat(DeviceHeartbeat(bootID: "b", uptime: .zero, queueDepth: 0))
            XCTAssertNil(NetworkChangesClient.failing.changes())
        }
        let names = ["uploadCheckIns", "fetchSettings", "pendingPings", "sendAlert", "uploadBatch", "sendHeartbeat"].map { "UplinkClient.\($0)" }
            + ["NetworkChangesClient.changes"]
        XCTAssertEqual(messages.count, names.count, "\(messages)")
        for (message, name) in zip(messages, names) { XCTAssertTrue(message.contains(name), message) }
    }
}
