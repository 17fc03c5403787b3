import CheckInModels
import DeviceAPI
import DevServer
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The device's own checks through the reference server's management API over loopback: found
/// or created by slug, kept in step, pinged without a URL in the config, and help alerts sent
/// exactly once even when the first answer was lost.
final class ManagedChecksLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
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

    private func checks(key: String = HealthchecksProject.devReadWriteKey) -> ManagedChecks {
        ManagedChecks(site: backend.baseURL, key: DeviceToken(secret: key), slugPrefix: "mum", timeout: .seconds(5), transport: transport)
    }

    private func specs(_ interval: Int64, _ reminder: Int64) -> [CheckSpec] {
        [CheckSpec(role: .checkIn, slug: "mum-check-in", name: "LifeSignal check-in (mum)", timeout: .seconds(interval - reminder),
                   grace: .seconds(reminder), description: "check-in"),
         CheckSpec(role: .alert, slug: "mum-alert", name: "LifeSignal HELP ALERT (mum)", timeout: .seconds(31_536_000),
                   grace: .seconds(31_536_000), description: "alert")]
    }

    func testChecksAreCreatedOnceFoundAfterwardsAndUpdatedWhenTheSettingsChange() async throws {
        let managed = checks()
        let created = try await managed.client.sync(specs(86_400, 7200)).get()
        XCTAssertEqual(created.map(\.change), [.created, .created])
        XCTAssertEqual(created.map(\.slug), ["mum-check-in", "mum-alert"])
        var server = backend.server.healthchecksChecks
        XCTAssertEqual(server.map(\.slug), ["mum-check-in", "mum-alert"])
        XCTAssertEqual(server.first?.timeout, 79_200)
        XCTAssertEqual(server.first?.grace, 7200)
        XCTAssertEqual(server.first?.channels, "*", "a new check notifies every integration of the project")

        // A restart: a new client finds them by slug.
        let again = try await checks().client.sync(specs(86_400, 7200)).get()
        XCTAssertEqual(again.map(\.change), [.unchanged, .unchanged])
        let updated = try await checks().client.sync(specs(16 * 3600, 3600)).get()
        XCTAssertEqual(updated.map(\.change), [.updated, .unchanged])
        server = backend.server.healthchecksChecks
        XCTAssertEqual(server.count, 2, "found, not created twice")
        XCTAssertEqual(server.first?.timeout, 15 * 3600)
        XCTAssertEqual(server.first?.grace, 3600)
    }

    func testDailyWindowsMakeACronCheckAndAwayModePausesItUntilAPingResumesIt() async throws {
        let managed = checks()
        var checkIn = specs(86_400, 7200)[0]
        checkIn.cron = CronSchedule(expression: "0 7 * * *", timeZone: "Europe/London")
        checkIn.grace = .seconds(3 * 3600 + 900)
        _ = try await managed.client.sync([checkIn]).get()
        var server = backend.server.healthchecksChecks
        XCTAssertEqual(server.first?.schedule, "0 7 * * *")
        XCTAssertEqual(server.first?.tz, "Europe/London")
        XCTAssertEqual(server.first?.grace, 3 * 3600 + 900)
        // The same cron spec again changes nothing; the interval again makes it a simple check.
        let again = try await checks().client.sync([checkIn]).get()
        XCTAssertEqual(again.map(\.change), [.unchanged])

        // Away: paused (healthchecks notifies nobody), then resumed by a success ping: up, with a
        // fresh period, and still no notification (paused → up).
        checkIn.paused = true
        let paused = try await managed.client.sync([checkIn]).get()
        XCTAssertEqual(paused.map(\.status), ["paused"])
        XCTAssertEqual(paused.map(\.change), [.updated])
        server = backend.server.healthchecksChecks
        XCTAssertEqual(server.first?.status, "paused")
        checkIn.paused = false
        let resumed = try await managed.client.sync([checkIn]).get()
        XCTAssertEqual(resumed.map(\.status), ["up"])
        server = backend.server.healthchecksChecks
        XCTAssertEqual(server.first?.status, "up")
        XCTAssertEqual(server.first?.notifications, [], "neither the pause nor the resume notified anyone")
        let resumingPing = backend.server.healthchecksPings.last
        XCTAssertEqual(resumingPing?.kind, "success")
        XCTAssertTrue(resumingPing?.body.contains("away mode ended") ?? false, "the resuming ping says why")

        checkIn.cron = nil
        _ = try await managed.client.sync([checkIn]).get()
        server = backend.server.healthchecksChecks
        XCTAssertNil(server.first?.schedule)
        XCTAssertEqual(server.first?.timeout, 79_200)
    }

    func testAReadOnlyOrWrongKeyIsRefusedForGoodAndSaysWhatKeyIsNeeded() async throws {
        for key in [HealthchecksProject.devReadOnlyKey, "wrong-key-0000000000000000000000"] {
            guard case let .failure(failure) = await checks(key: key).client.sync(specs(86_400, 7200)) else {
                return XCTFail("\(key) set up checks")
            }
            XCTAssertEqual(failure.kind, .permanent)
            XCTAssertTrue(failure.message.contains("HTTP 401: wrong api key"), failure.message)
            XCTAssertTrue(failure.message.contains("read-write key"), failure.message)
            XCTAssertFalse(failure.message.contains(key), "the key is a secret: \(failure.message)")
        }
        XCTAssertEqual(backend.server.healthchecksChecks, [])
    }

    func testAServerErrorIsTransientAndReadable() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.htmlPage, status: 500, operation: "GET /api/v3/checks/")]))
        guard case let .failure(failure) = await checks().client.sync(specs(86_400, 7200)) else { return XCTFail("a 500 was a success") }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertTrue(failure.message.contains("HTTP 500: an HTML page titled \"500 Internal Server Error\""), failure.message)
    }

    func testPingsGoToTheCheckTheSyncMadeAndWaitWhileItDoesNotExistYet() async throws {
        let managed = checks()
        let client = UplinkClient.healthchecks(.managed(.checkIn, managed), timeout: .seconds(5), lateAfter: .seconds(600),
                                               now: { Self.now }, transport: transport)
        XCTAssertEqual(client.endpoint, "mum-check-in on 127.0.0.1:\(backend.port)")
        let record = CheckInRecord(id: .random(), at: Self.now, source: .button)
        guard case let .failure(early) = await client.uploadBatch([record]) else { return XCTFail("pinged a check that is not there") }
        XCTAssertEqual(early.kind, .transient, early.message)
        XCTAssertTrue(early.message.contains("does not exist"), early.message)

        _ = try await managed.client.sync(specs(86_400, 7200)).get()
        _ = try await client.uploadBatch([record]).get()
        let uuid = try XCTUnwrap(backend.server.healthchecksChecks.first { $0.slug == "mum-check-in" }?.uuid)
        XCTAssertEqual(backend.server.healthchecksPings.map(\.check), [uuid])
        XCTAssertEqual(backend.server.healthchecksChecks.first?.status, "up")
    }

    func testAHelpAlertReachesTheDevicesOwnCheckAsOneFailEvenWhenTheFirstAnswerWasLost() async throws {
        let managed = checks()
        _ = try await managed.client.sync(specs(86_400, 7200)).get()
        let client = UplinkClient.healthchecks(.managed(.alert, managed), timeout: .seconds(5), lateAfter: .seconds(600),
                                               now: { Self.now }, transport: transport)
        let first = AlertRecord(id: .random(), at: Self.now, source: .button)
        // The server takes the fail, then the connection drops before its answer.
        backend.server.inject(FaultUpdate(schedule: [Fault(.dropAfterStore, operation: "POST /ping/")]))
        guard case .failure = await client.sendAlert(first) else { return XCTFail("a lost answer was a success") }
        let acknowledged = try await client.sendAlert(first).get()
        XCTAssertEqual(acknowledged, [first.id])
        var fails = backend.server.healthchecksPings.filter { $0.kind == "fail" }
        XCTAssertEqual(fails.map(\.rid), [first.id.description], "the resend found it there and sent nothing")

        // A second alert while the check is still down from the first: paused first (silently),
        // so the new fail notifies again; never a success ping.
        let second = AlertRecord(id: .random(), at: Self.now, source: .cli)
        _ = try await client.sendAlert(second).get()
        fails = backend.server.healthchecksPings.filter { $0.kind == "fail" }
        XCTAssertEqual(fails.map(\.rid), [first.id.description, second.id.description])
        XCTAssertEqual(backend.server.healthchecksPings.filter { $0.kind == "success" }, [])
        let check = try XCTUnwrap(backend.server.healthchecksChecks.first { $0.slug == "mum-alert" })
        XCTAssertEqual(check.status, "down")
        XCTAssertEqual(check.notifications, ["down", "down"], "each alert told the family once, and nothing else")
    }
}
