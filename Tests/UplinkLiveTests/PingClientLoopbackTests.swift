import CheckInModels
import DevServer
import DeviceAPI
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// Pings over real loopback HTTP: the live client against the reference server's long poll.
final class PingClientLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "ping-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        backend = nil
    }

    func testAHeldLongPollAnswersWhenAPingIsCreatedAndTheCursorHidesItAfterwards() async throws {
        let client = backend.client(transport: transport)
        let poll = Task { await client.pendingPings(nil, .seconds(60)) }
        try await waitUntil("the poll is held by the server") {
            self.backend.server.stats.requestsByOperation["GET /v1/pings"] == 1
        }
        let ping = try backend.server.createPing(device: LoopbackBackend.device, responderName: "Alice")
        // Had the server not woken the held poll, it would answer after 60 s with no pings.
        let answer = try await poll.value.get()
        XCTAssertEqual(answer.pings, [ping.pending])
        XCTAssertEqual(answer.pings.first?.responderName, "Alice")

        let next = try await client.pendingPings(answer.cursor, .zero).get()
        XCTAssertEqual(next.pings, [], "pings up to the cursor are not sent again")
        XCTAssertEqual(next.cursor, answer.cursor)
        let fromScratch = try await client.pendingPings(nil, .zero).get()
        XCTAssertEqual(fromScratch.pings, [ping.pending], "without a cursor: every unanswered ping")
    }

    func testShuttingTheTransportDownAbandonsAHeldPollAtOnce() async throws {
        let pollTransport = try CurlTransport(threadName: "ping-test-poll")
        let client = UplinkClient.live(baseURL: backend.server.baseURL, token: DeviceToken(secret: LoopbackBackend.token),
                                       timeout: .seconds(5), transport: transport, pollTransport: pollTransport)
        let poll = Task { await client.pendingPings(nil, .seconds(120)) }
        try await waitUntil("the poll is held by the server") {
            self.backend.server.stats.requestsByOperation["GET /v1/pings"] == 1
        }
        // The other transport is free: a check-in upload is not stuck behind the held poll.
        _ = try await client.uploadCheckIns(sampleCheckIns(1)).get()
        pollTransport.shutdown(wait: true)  // would block for the whole 120 s if the wait were not interrupted
        let result = await poll.value
        XCTAssertTrue(result.failure?.message.contains("shutting down") == true, "\(result)")
    }

    func testResponsesAreStoredOnceAcknowledgedByIDAndAnswerThePing() async throws {
        let client = backend.client(transport: transport)
        let ping = try backend.server.createPing(device: LoopbackBackend.device, responderName: "Bob")
        let response = PingResponse(id: .random(), pingID: ping.id, checkInID: .random(),
                                    at: WallTime(microsecondsSinceEpoch: 1_795_000_000_123_456))
        let first = try await client.respondToPings([response]).get()
        let again = try await client.respondToPings([response]).get()
        XCTAssertEqual(first, [response.id])
        XCTAssertEqual(again, [response.id], "a duplicate is acknowledged too, so the device can mark it")

        let stored = try backend.server.storedPingResponses(device: LoopbackBackend.device)
        XCTAssertEqual(stored.map(\.response), [UploadedPingResponse(response)])
        XCTAssertEqual(stored.map(\.receipts), [2])
        XCTAssertEqual(stored.first?.response.wallTime, "2026-11-18T11:06:40.123456Z")
        XCTAssertNotNil(try backend.server.pings(device: LoopbackBackend.device).first?.answeredAt)
        let pending = try await client.pendingPings(nil, .zero).get()
        XCTAssertEqual(pending.pings, [], "an answered ping is no longer pending")
    }

    func testInjectedFaultsReachThePollAsTransientFailures() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, retryAfterSeconds: 3), Fault(.drop)]))
        let client = backend.client(transport: transport)
        let unavailable = await client.pendingPings(nil, .zero)
        XCTAssertEqual(unavailable.failure?.kind, .transient)
        XCTAssertEqual(unavailable.failure?.retryAfter, .seconds(3))
        let dropped = await client.pendingPings(nil, .zero)
        XCTAssertEqual(dropped.failure?.kind, .transient)
        let badWait = await client.pendingPings("not-a-cursor", .zero)
        XCTAssertEqual(badWait.failure?.kind, .permanent)
        XCTAssertEqual(badWait.failure?.httpStatus, 400)
    }

    func testACursorWithReservedCharactersIsSentPercentEncoded() async throws {
        let client = backend.client(transport: transport)
        let result = await client.pendingPings("1&x=y", .zero)
        XCTAssertEqual(result.failure?.httpStatus, 400, "the whole text reached the server as the cursor")
    }
}
