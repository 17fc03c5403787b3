import CheckInModels
import DevServer
import DeviceAPI
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The live client (libcurl on its own thread) against the reference server over real loopback HTTP.
final class UplinkClientLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "uplink-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        backend = nil
    }

    func testABatchIsAcknowledgedByIDAndStoredWithEveryField() async throws {
        let batch = sampleCheckIns(3)
        let result = await backend.client(transport: transport).uploadCheckIns(batch)
        XCTAssertEqual(try result.get(), batch.map(\.id))
        let stored = try backend.server.storedCheckIns(device: LoopbackBackend.device)
        XCTAssertEqual(stored.map(\.checkIn), batch.map(UploadedCheckIn.init))
        XCTAssertEqual(stored.first?.checkIn.wallTime, "2026-11-18T11:06:40.000000Z")
        XCTAssertEqual(stored.map(\.receipts), [1, 1, 1])
    }

    func testSendingTheSameBatchTwiceStoresEachCheckInOnce() async throws {
        let batch = sampleCheckIns(4)
        let client = backend.client(transport: transport)
        _ = try await client.uploadCheckIns(batch).get()
        let again = try await client.uploadCheckIns(Array(batch.reversed())).get()
        XCTAssertEqual(Set(again), Set(batch.map(\.id)), "a duplicate is acknowledged too, so the device can mark it")
        XCTAssertEqual(try backend.storedIDs(), batch.map(\.id.description))
        XCTAssertEqual(try backend.server.storedCheckIns().map(\.receipts), [2, 2, 2, 2])
    }

    func testServerErrorsAndRateLimitsAreTransientAndCarryRetryAfter() async throws {
        backend.server.inject(FaultUpdate(schedule: [
            Fault(.status, status: 503), Fault(.status, status: 500), Fault(.status, status: 408),
            Fault(.status, status: 429, retryAfterSeconds: 7),
        ]))
        let client = backend.client(transport: transport)
        var failures: [UplinkFailure] = []
        for _ in 0..<4 {
            guard case let .failure(failure) = await client.uploadCheckIns(sampleCheckIns(1)) else {
                return XCTFail("the injected fault did not fail the upload")
            }
            failures.append(failure)
        }
        XCTAssertEqual(failures.map(\.kind), [.transient, .transient, .transient, .transient])
        XCTAssertEqual(failures.map(\.httpStatus), [503, 500, 408, 429])
        XCTAssertEqual(failures.map(\.retryAfter), [nil, nil, nil, .seconds(7)])
        XCTAssertTrue(failures[0].message.contains("injected fault"), "the server's message is kept: \(failures[0].message)")
        XCTAssertEqual(try backend.storedIDs(), [], "nothing is stored when the server fails the request")
    }

    func testAWrongTokenIsPermanentWithTheServersMessageAndNeverShowsTheToken() async throws {
        let secret = "not-the-right-token-1234"
        let result = await backend.client(token: secret, transport: transport).uploadCheckIns(sampleCheckIns(1))
        guard case let .failure(failure) = result else { return XCTFail("a wrong token was accepted") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 401)
        XCTAssertTrue(failure.message.contains("unknown bearer token"), failure.message)
        XCTAssertFalse(failure.message.contains(secret))
        XCTAssertFalse("\(DeviceToken(secret: secret))".contains(secret), "a token never prints itself")
    }

    func testOtherClientErrorsAndAMalformedReplyArePermanent() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 404), Fault(.malformedReply)]))
        let client = backend.client(transport: transport)
        let notFound = await client.uploadCheckIns(sampleCheckIns(1))
        let garbage = await client.uploadCheckIns(sampleCheckIns(1))
        guard case let .failure(first) = notFound, case let .failure(second) = garbage else {
            return XCTFail("the faults did not fail the uploads")
        }
        XCTAssertEqual(first.kind, .permanent)
        XCTAssertEqual(second.kind, .permanent)
        XCTAssertTrue(second.message.contains("cannot read"), second.message)
    }

    func testADroppedConnectionIsTransient() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.drop)]))
        let result = await backend.client(transport: transport).uploadCheckIns(sampleCheckIns(1))
        guard case let .failure(failure) = result else { return XCTFail("a dropped connection succeeded") }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertNil(failure.httpStatus)
        XCTAssertEqual(try backend.storedIDs(), [])
    }

    func testALostAcknowledgementIsTransientAndTheResendIsStoredOnce() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.dropAfterStore)]))
        let batch = sampleCheckIns(2)
        let client = backend.client(transport: transport)
        guard case let .failure(failure) = await client.uploadCheckIns(batch) else {
            return XCTFail("the reply was dropped, yet the upload succeeded")
        }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertEqual(try backend.storedIDs(), batch.map(\.id.description), "stored before the connection dropped")
        let resent = try await client.uploadCheckIns(batch).get()
        XCTAssertEqual(Set(resent), Set(batch.map(\.id)))
        XCTAssertEqual(try backend.storedIDs(), batch.map(\.id.description), "the resend did not duplicate them")
    }

    func testASlowServerTimesOutAsTransient() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.delay, delayMilliseconds: 3000)]))
        let result = await backend.client(timeout: .milliseconds(300), transport: transport).uploadCheckIns(sampleCheckIns(1))
        guard case let .failure(failure) = result else { return XCTFail("a request past its timeout succeeded") }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertTrue(failure.message.lowercased().contains("timed out") || failure.message.contains("timeout"), failure.message)
    }

    func testSettingsAreFetchedAndOnlyANewerVersionIsAccepted() async throws {
        let client = backend.client(transport: transport)
        let initial = try await client.fetchSettings().get()
        XCTAssertEqual(initial, RemoteSettings(settings: CheckInSettings(interval: .seconds(86_400), reminder: .seconds(7_200)), version: 0))

        let mine = RemoteSettings(settings: CheckInSettings(interval: .seconds(57_600), reminder: .seconds(3_600)), version: 3)
        let accepted = try await client.pushSettings(mine).get()
        XCTAssertEqual(accepted, .accepted(mine))
        XCTAssertEqual(try backend.server.settings(device: LoopbackBackend.device),
                       DeviceSettings(intervalSeconds: 57_600, reminderSeconds: 3_600, version: 3))

        let stale = RemoteSettings(settings: CheckInSettings(interval: .seconds(28_800), reminder: .seconds(3_600)), version: 3)
        let refused = try await client.pushSettings(stale).get()
        XCTAssertEqual(refused, .backendIsNewer(mine), "same version: the backend's stand")
        let fetched = try await client.fetchSettings().get()
        XCTAssertEqual(fetched, mine)
    }

    func testAwayModeTravelsWithTheSettingsAndAnEventIsStoredOnce() async throws {
        let client = backend.client(transport: transport)
        let plan = AwayPlan(since: WallTime(secondsSinceEpoch: 1_795_000_000), until: WallTime(secondsSinceEpoch: 1_795_086_400))
        let away = RemoteSettings(settings: .default, version: 2, away: plan)
        let pushed = try await client.pushSettings(away).get()
        XCTAssertEqual(pushed, .accepted(away))
        XCTAssertEqual(try backend.server.settings(device: LoopbackBackend.device).awayUntil, "2026-11-19T11:06:40.000000Z")
        let fetched = try await client.fetchSettings().get()
        XCTAssertEqual(fetched, away)
        let back = RemoteSettings(settings: .default, version: 3)
        let returned = try await client.pushSettings(back).get()
        XCTAssertEqual(returned, .accepted(back))
        XCTAssertNil(try backend.server.settings(device: LoopbackBackend.device).awayUntil)

        // An away time the device cannot read is refused for good, naming it.
        try backend.server.setSettings(DeviceSettings(intervalSeconds: 86_400, reminderSeconds: 7_200, version: 9, awayUntil: "soon"),
                                       device: LoopbackBackend.device)
        guard case let .failure(failure) = await client.fetchSettings() else { return XCTFail("an unreadable away time was taken") }
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("awayUntil soon"), failure.message)

        let event = PowerEvent(id: .random(), at: DeviceInstant(wall: WallTime(secondsSinceEpoch: 1_795_000_000), uptime: .seconds(5),
                                                                bootID: "b", wallClockSynchronized: true),
                               kind: .onBattery, detail: "the mains power is off")
        let first = try await client.sendEvent(event).get()
        XCTAssertEqual(first, [event.id])
        let repeated = try await client.sendEvent(event).get()
        XCTAssertEqual(repeated, [event.id], "a repeat is acknowledged too")
        let stored = try backend.server.storedEvents(device: LoopbackBackend.device)
        XCTAssertEqual(stored.map(\.kind), ["on_battery"])
        XCTAssertEqual(stored.first?.receipts, 2)
        XCTAssertEqual(stored.first?.detail, "the mains power is off")
    }

    func testNoServerListeningIsTransient() async throws {
        let url = backend.server.baseURL
        backend.server.stop()
        let client = UplinkClient.live(baseURL: url, token: DeviceToken(secret: "x"), timeout: .seconds(2), transport: transport)
        guard case let .failure(failure) = await client.uploadCheckIns(sampleCheckIns(1)) else {
            return XCTFail("an upload to a closed port succeeded")
        }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertTrue(failure.message.contains(url), failure.message)
    }

    func testTheClientReturnsRejectionsByIDWithTheirMessages() async throws {
        let records = sampleCheckIns(3)
        backend.server.inject(FaultUpdate(rejectCheckInIDs: [records[2].id.description]))
        let outcome = try await backend.client(transport: transport).uploadBatch(records).get()
        XCTAssertEqual(outcome.acknowledged, Array(records.prefix(2).map(\.id)))
        XCTAssertEqual(outcome.refused.map(\.id), [records[2].id])
        XCTAssertTrue(outcome.refused[0].message.contains("checkIns[2]"), outcome.refused[0].message)
    }

    func testAHeartbeatReachesTheServer() async throws {
        let result = await backend.client(transport: transport)
            .sendHeartbeat(DeviceHeartbeat(bootID: "b", uptime: .seconds(5), queueDepth: 3))
        XCTAssertNoThrow(try result.get())
        XCTAssertEqual(backend.server.stats.heartbeats, 1)
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
}
