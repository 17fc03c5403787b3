import CheckInModels
import DeviceAPI
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
        .healthchecks(.url("\(backend.baseURL)/ping/\(path)"), timeout: .seconds(5), lateAfter: lateAfter,
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
        XCTAssertTrue(pings[0].body.contains("delivered late, 1 h after the press (the device could not reach this server"),
                      pings[0].body)
        XCTAssertTrue(pings[1].body.contains("an unknown time after the press (the device restarted without a synchronised clock)"),
                      pings[1].body)
        XCTAssertFalse(pings[0].body.contains("the device was offline"), "the server may have been the one down")
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

    func testAnUnknownCheckIsPermanentSaysSoInPlainWordsAndItsURLIsNotShown() async throws {
        // A ping key the project does not have: the server's own 404, "not found" in plain text.
        let secret = "no-such-ping-key-0123/mum"
        let client = client(secret)
        guard case let .failure(failure) = await client.uploadBatch([checkIn(ago: .zero)]) else {
            return XCTFail("a 404 was a success")
        }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("answered HTTP 404: not found (no such check: compare the ping URL"), failure.message)
        XCTAssertFalse(failure.message.contains(secret), "the ping URL is a secret: \(failure.message)")
        XCTAssertFalse(client.endpoint.contains(secret), client.endpoint)
    }

    func testAWebPageInsteadOfTheServersAnswerIsNamedByItsTitleNeverQuotedAsMarkup() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.htmlPage, status: 502, operation: "POST /ping/")]))
        guard case let .failure(failure) = await client(Self.check).uploadBatch([checkIn(ago: .zero)]) else {
            return XCTFail("a 502 page was a success")
        }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertTrue(failure.message.hasSuffix("answered HTTP 502: an HTML page titled \"502 Bad Gateway\""), failure.message)
        XCTAssertFalse(failure.message.contains("<"), failure.message)
    }

    func testEveryPingSaysWhatSentIt() async throws {
        _ = try await client(Self.check).uploadBatch([checkIn(ago: .zero)]).get()
        XCTAssertEqual(backend.server.healthchecksPings.first?.userAgent, "lifesignald/\(DeviceSoftware.version)")
        XCTAssertTrue(DeviceSoftware.userAgent.hasPrefix("lifesignald/"))
    }

    /// A hand-made alert check: re-armed with a success ping, then one `fail` carrying the
    /// alert's id as its run id.
    func testAHelpAlertIsAFailSignalWithTheAlertsIDAfterARearmingPing() async throws {
        let alert = AlertRecord(id: .random(), at: Self.now, source: .button)
        let acknowledged = try await client(Self.check).sendAlert(alert).get()
        XCTAssertEqual(acknowledged, [alert.id])
        let pings = backend.server.healthchecksPings
        XCTAssertEqual(pings.map(\.kind), ["success", "fail"])
        XCTAssertTrue(pings[0].body.contains("re-arming"), pings[0].body)
        XCTAssertEqual(pings[1].rid, alert.id.description)
        XCTAssertTrue(pings[1].body.contains("LifeSignal HELP ALERT \(alert.id)"), pings[1].body)
        XCTAssertTrue(pings[1].body.contains("the button was held"), pings[1].body)
        let check = try XCTUnwrap(backend.server.healthchecksChecks.first { $0.uuid == Self.check })
        XCTAssertEqual(check.status, "down")
        XCTAssertEqual(check.notifications, ["down"], "a new check: the re-arming ping is silent, the fail notifies")
        // A second alert while it is down: "up" then "down" (a hand-made check cannot be paused).
        _ = try await client(Self.check).sendAlert(AlertRecord(id: .random(), at: Self.now, source: .cli)).get()
        XCTAssertEqual(backend.server.healthchecksChecks.first { $0.uuid == Self.check }?.notifications, ["down", "up", "down"])
    }

    func testTheHeartbeatCheckIsPingedWithUptimeAndQueueDepthAndShownShortened() async throws {
        let client = client("\(HealthchecksProject.devPingKey)/lifesignal-heartbeat")
        try await client.sendHeartbeat(DeviceHeartbeat(bootID: "hc-boot", uptime: .seconds(468), queueDepth: 7)).get()
        let ping = try XCTUnwrap(backend.server.healthchecksPings.first)
        XCTAssertEqual(ping.check, "\(HealthchecksProject.devPingKey)/lifesignal-heartbeat")
        XCTAssertTrue(ping.body.contains("uptime: 7 min 48 s"), ping.body)
        XCTAssertEqual(ping.kind, "success")
        XCTAssertTrue(ping.body.contains("check-ins not yet delivered: 7"), ping.body)
        XCTAssertTrue(ping.body.contains("boot: hc-boot"), ping.body)
        XCTAssertEqual(client.endpoint, "\(backend.baseURL)/…beat", "shortened: the ping URL is a secret")
    }
}
