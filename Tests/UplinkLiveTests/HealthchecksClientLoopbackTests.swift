import CheckInModels
import DevServer
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The healthchecks client against the reference server's healthchecks.io-compatible ping
/// endpoints over loopback: one ping per check-in with its id and press time, late ones to `/log`,
/// the heartbeat's body, and the ping URL (a secret) shortened wherever it is shown.
final class HealthchecksClientLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    static let check = "5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10"
    /// The device's "now" for these tests: 2026-11-18T11:06:40Z, this boot.
    static let now = DeviceInstant(wall: WallTime(secondsSinceEpoch: 1_795_000_000), uptime: .seconds(10_000),
                                   bootID: "hc-boot", wallClockSynchronized: true)

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "healthchecks-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        backend = nil
    }

    private func client(_ path: String, lateAfter: Duration = .seconds(600)) -> UplinkClient {
        .healthchecks(url: "\(backend.baseURL)/ping/\(path)", timeout: .seconds(5), lateAfter: lateAfter,
                      now: { Self.now }, transport: transport)
    }

    private func checkIn(ago: Duration, bootID: String = "hc-boot", source: CheckInSource = .button) -> CheckInRecord {
        CheckInRecord(id: .random(), at: DeviceInstant(wall: Self.now.wall + (.zero - ago), uptime: Self.now.uptime - ago,
                                                       bootID: bootID, wallClockSynchronized: true), source: source)
    }

    func testEachCheckInIsPingedOnceInOrderWithItsIDAndPressTime() async throws {
        let records = [checkIn(ago: .seconds(30)), checkIn(ago: .seconds(20), source: .cli), checkIn(ago: .seconds(10))]
        let outcome = try await client(Self.check).uploadBatch(records).get()
        XCTAssertEqual(outcome.acknowledged, records.map(\.id))
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.map(\.check), Array(repeating: Self.check, count: 3))
        XCTAssertEqual(pings.map(\.kind), ["success", "success", "success"])
        for (ping, record) in zip(pings, records) {
            XCTAssertTrue(ping.body.contains(record.id.description), ping.body)
            XCTAssertTrue(ping.body.contains("pressed: \(record.at.wall.iso8601)"), ping.body)
        }
    }

    func testACheckInDeliveredLateGoesToTheLogEndpointSoItCannotMakeTheCheckLookFresh() async throws {
        let old = checkIn(ago: .seconds(3600))
        var otherBoot = checkIn(ago: .zero, bootID: "an-earlier-boot")
        otherBoot.at.wallClockSynchronized = false
        let fresh = checkIn(ago: .zero)
        _ = try await client(Self.check, lateAfter: .seconds(60)).uploadBatch([old, otherBoot, fresh]).get()
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.map(\.kind), ["log", "log", "success"])
        XCTAssertTrue(pings[0].body.contains("delivered late"), pings[0].body)
    }

    func testWhatWentThroughBeforeAFailureIsDeliveredAndABatchWhoseFirstPingFailsIsAFailure() async throws {
        let records = [checkIn(ago: .seconds(3)), checkIn(ago: .seconds(2)), checkIn(ago: .seconds(1))]
        // The first ping is served (a delay of nothing), the second meets a 503.
        backend.server.inject(FaultUpdate(schedule: [Fault(.delay, delayMilliseconds: 0, operation: "POST /ping/"),
                                                     Fault(.status, status: 503, operation: "POST /ping/")]))
        let client = client(Self.check)
        let partial = try await client.uploadBatch(records).get()
        XCTAssertEqual(partial.acknowledged, [records[0].id], "what went through stays delivered")

        backend.server.inject(FaultUpdate(schedule: [Fault(.drop, operation: "POST /ping/")]))
        let rest = Array(records.dropFirst())
        guard case let .failure(failure) = await client.uploadBatch(rest) else { return XCTFail("a dropped ping was a success") }
        XCTAssertEqual(failure.kind, .transient)
        let retried = try await client.uploadBatch(rest).get()
        XCTAssertEqual(retried.acknowledged, rest.map(\.id))
        XCTAssertEqual(backend.server.healthchecksPings.map(\.body).filter { $0.contains(records[0].id.description) }.count, 1,
                       "the first check-in was pinged once")
    }

    func testAnUnknownCheckIsPermanentAndItsURLIsNotShown() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 404, operation: "POST /ping/")]))
        let secret = "no-such-check-0123"
        let client = client(secret)
        guard case let .failure(failure) = await client.uploadBatch([checkIn(ago: .zero)]) else {
            return XCTFail("a 404 was a success")
        }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("404"), failure.message)
        XCTAssertFalse(failure.message.contains(secret), "the ping URL is a secret: \(failure.message)")
        XCTAssertFalse(client.endpoint.contains(secret), client.endpoint)
    }

    func testTheHeartbeatCheckIsPingedWithUptimeAndQueueDepthAndShownShortened() async throws {
        let client = client("key123/lifesignal-heartbeat")
        try await client.sendHeartbeat(DeviceHeartbeat(bootID: "hc-boot", uptime: .seconds(90), queueDepth: 7)).get()
        let ping = try XCTUnwrap(backend.server.healthchecksPings.first)
        XCTAssertEqual(ping.check, "key123/lifesignal-heartbeat")
        XCTAssertEqual(ping.kind, "success")
        XCTAssertTrue(ping.body.contains("queued check-ins: 7"), ping.body)
        XCTAssertTrue(ping.body.contains("boot: hc-boot"), ping.body)
        XCTAssertEqual(client.endpoint, "\(backend.baseURL)/…beat", "shortened: the ping URL is a secret")
    }
}
