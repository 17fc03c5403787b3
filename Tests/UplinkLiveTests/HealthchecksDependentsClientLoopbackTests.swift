import CheckInModels
import DependentsClient
import DeviceAPI
import DevServer
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// healthchecks checks as dependents, read with a read-only key from the reference server's
/// management API subset on a clock the test moves: up, grace, down, paused and new map to
/// checked in, reminder, overdue, away and unknown; nothing is written through this source.
final class HealthchecksDependentsClientLoopbackTests: XCTestCase {
    var clock: SettableWallClock!
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var stub: HTTPServer?

    override func setUp() async throws {
        clock = SettableWallClock()
        backend = try LoopbackBackend(clock: clock.read)
        transport = try CurlTransport(threadName: "hc-dependents-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        stub?.stop()
        backend = nil
    }

    func client(key: String = HealthchecksProject.devReadOnlyKey, site: String? = nil) -> DependentsClient {
        .healthchecks(apiURL: site ?? backend.baseURL, readOnlyKey: DeviceToken(secret: key), timeout: .seconds(5), transport: transport)
    }

    /// Made through the management API with the read-write key, as the person's device makes its own.
    func makeCheck(_ slug: String, name: String = "", timeout: Int64 = 3600, grace: Int64 = 600) throws -> HealthchecksCheck {
        let body = APICoding.encode(HealthchecksCheckUpdate(name: name, slug: slug, timeout: timeout, grace: grace))
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: .post, url: backend.baseURL + HealthchecksPath.checks,
            headers: ["X-Api-Key: \(HealthchecksProject.devReadWriteKey)", "Content-Type: application/json"], body: body,
            timeout: .seconds(5))).get()
        XCTAssertEqual(response.status, 201)
        return try APICoding.decode(HealthchecksCheck.self, from: response.body).get()
    }

    func dependent(_ address: String) async throws -> SourcedDependent {
        let fetched = try await client().fetch().get()
        return try XCTUnwrap(fetched[address], "\(address) is not among \(fetched.keys.sorted())")
    }

    func post(_ path: String, key: String? = nil) throws {
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: .post, url: backend.baseURL + path, headers: key.map { ["X-Api-Key: \($0)"] } ?? [], timeout: .seconds(5))).get()
        XCTAssertEqual(response.status, 200, path)
    }

    func testUpGraceAndDownAreCheckedInReminderAndOverdueWithTheLastAndNextPing() async throws {
        let check = try makeCheck("mum-check-in", name: "Mum")
        try post("/ping/\(try XCTUnwrap(check.uuid))")
        let pinged = clock.now
        var mum = try await dependent("mum-check-in")
        XCTAssertEqual(mum, SourcedDependent(name: "Mum", report: DependentReport(status: .checkedIn, lastCheckIn: pinged,
                                                                                 deadline: pinged + .seconds(3600))))
        clock.advance(.seconds(3600))
        mum = try await dependent("mum-check-in")
        XCTAssertEqual(mum.report.status, .reminder, "grace: the ping is late, not yet down")
        clock.advance(.seconds(600))
        mum = try await dependent("mum-check-in")
        XCTAssertEqual(mum.report.status, .overdue)
        XCTAssertEqual(mum.report.deadline, pinged + .seconds(3600))
    }

    func testPausedIsAwayAndNewIsUnknown() async throws {
        let paused = try makeCheck("gran")
        _ = try makeCheck("dad")
        try post(HealthchecksPath.checks + "\(try XCTUnwrap(paused.uuid))/pause", key: HealthchecksProject.devReadWriteKey)
        let fetched = try await client().fetch().get()
        XCTAssertEqual(fetched["gran"]?.report.status, .away)
        XCTAssertEqual(fetched["dad"]?.report, DependentReport(status: .unknown))
        XCTAssertEqual(fetched["dad"]?.name, "dad", "a check without a name goes by its slug")
        XCTAssertEqual(Set(fetched.keys), ["gran", "dad"], "a read-only key shows no UUIDs")
    }

    func testAKeyThatShowsUUIDsAddressesChecksByUUIDToo() async throws {
        let check = try makeCheck("mum-check-in")
        let fetched = try await client(key: HealthchecksProject.devReadWriteKey).fetch().get()
        XCTAssertEqual(Set(fetched.keys), ["mum-check-in", try XCTUnwrap(check.uuid)])
    }

    func testAddingFindsTheCheckAndAnUnknownOneIsAFailureNamingIt() async throws {
        let check = try makeCheck("mum-check-in", name: "Mum")
        let name = try await client().add("mum-check-in").get().name
        XCTAssertEqual(name, "Mum")
        let unknown = try failure(of: await client().add("nope"))
        XCTAssertEqual(unknown.kind, .permanent)
        XCTAssertTrue(unknown.message.contains("no check with slug or UUID 'nope'"), unknown.message)
        let byUUID = try failure(of: await client().add(try XCTUnwrap(check.uuid)))
        XCTAssertTrue(byUUID.message.contains("name the check by its slug"), byUUID.message)
        try await client().remove("mum-check-in").get()
    }

    func testNoPingClearOrImOnItThroughHealthchecks() async throws {
        _ = try makeCheck("mum-check-in")
        let client = client()
        for failure in [await client.ping("mum-check-in").failure, await client.clearPing("mum-check-in").failure,
                        await client.onIt("mum-check-in", "Anna").failure] {
            let failure = try XCTUnwrap(failure)
            XCTAssertEqual(failure.kind, .permanent)
            XCTAssertTrue(failure.message.contains("healthchecks cannot carry"), failure.message)
        }
        XCTAssertEqual(backend.server.healthchecksPings, [], "nothing was sent to the check")
    }

    func testAWrongKeyIsAFailureThatSaysWhichKey() async throws {
        let failure = try failure(of: await client(key: "ro-not-the-project-key-0123456789").fetch())
        XCTAssertEqual(failure.httpStatus, 401)
        XCTAssertTrue(failure.message.contains("GET \(backend.baseURL)/api/v3/checks/"), failure.message)
        XCTAssertTrue(failure.message.contains("read-only API key is wrong"), failure.message)
    }

    func stubbed(_ body: String, status: Int = 200) throws -> DependentsClient {
        let server = try HTTPServer(port: 0) { _ in .respond(ServerResponse(status: status, body: Array(body.utf8))) }
        stub = server
        return client(site: "http://127.0.0.1:\(server.port)")
    }

    static func checks(status: String, lastPing: String = "null") -> String {
        #"{"checks": [{"name": "Mum", "slug": "mum", "grace": 600, "timeout": 3600, "status": "\#(status)", "#
            + #""last_ping": \#(lastPing), "next_ping": null}]}"#
    }

    func testAnUnknownStatusWordIsAFailureNamingItNeverCheckedIn() async throws {
        let failure = try failure(of: try await stubbed(Self.checks(status: "sleeping")).fetch())
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("check 'mum' in status 'sleeping'"), failure.message)
        XCTAssertTrue(failure.message.contains("http://127.0.0.1:"), failure.message)
    }

    func testAnUnreadableTimeOrReplyIsAFailure() async throws {
        let time = try failure(of: try await stubbed(Self.checks(status: "up", lastPing: #""soon""#)).fetch())
        XCTAssertTrue(time.message.contains("last_ping 'soon'"), time.message)
        stub?.stop()
        let page = try failure(of: try await stubbed("<html><title>Welcome to nginx</title></html>").fetch())
        XCTAssertTrue(page.message.contains("cannot read"), page.message)
        stub?.stop()
        let down = try failure(of: try await stubbed(#"{"error": "overloaded"}"#, status: 503).fetch())
        XCTAssertEqual(down.kind, .transient)
        XCTAssertTrue(down.message.contains("HTTP 503: overloaded"), down.message)
    }
}
