import CheckInModels
import DependentsClient
import DeviceAPI
import DevServer
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The backend's dependents client against the reference backend over loopback: a watcher
/// follows the person's device, sees their check-in, pings, withdraws, says "I'm on it" and stops
/// following; every reply that is not what the API says is a failure naming the server and the
/// fault, never a status.
final class BackendDependentsClientLoopbackTests: XCTestCase {
    static let watcher = "watcher-device", watcherToken = "token-for-the-watcher"
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var stub: HTTPServer?

    override func setUp() async throws {
        backend = try LoopbackBackend(tokens: [LoopbackBackend.token: LoopbackBackend.device, Self.watcherToken: Self.watcher,
                                               "token-for-a-stranger": "stranger"],
                                      names: [LoopbackBackend.device: "Mum", Self.watcher: "Anna"])
        transport = try CurlTransport(threadName: "dependents-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        stub?.stop()
        backend = nil
    }

    func client(token: String = BackendDependentsClientLoopbackTests.watcherToken, baseURL: String? = nil) -> DependentsClient {
        .backend(baseURL: baseURL ?? backend.baseURL, token: DeviceToken(secret: token), timeout: .seconds(5), transport: transport)
    }

    /// The person's device checks in now, through its own live uplink.
    func personChecksIn() async throws -> CheckInRecord {
        let record = CheckInRecord(id: .random(), at: DeviceInstant(wall: DevServer.systemClock(), uptime: .seconds(5), bootID: "boot",
                                                                    wallClockSynchronized: true), source: .button)
        let acknowledged = try await backend.client(transport: transport).uploadCheckIns([record]).get()
        XCTAssertEqual(acknowledged, [record.id])
        return record
    }

    func testAWatcherFollowsThePersonAndSeesTheirCheckIn() async throws {
        let added = try await client().add(LoopbackBackend.device).get()
        XCTAssertEqual(added, SourcedDependent(name: "Mum", report: DependentReport(status: .unknown)))
        let record = try await personChecksIn()
        let fetched = try await client().fetch().get()
        XCTAssertEqual(Array(fetched.keys), [LoopbackBackend.device])
        let report = try XCTUnwrap(fetched[LoopbackBackend.device]).report
        XCTAssertEqual(report.status, .checkedIn)
        XCTAssertEqual(report.lastCheckIn, record.at.wall)
        XCTAssertEqual(report.deadline, record.at.wall + .seconds(86_400))
        XCTAssertFalse(report.pingPending)
    }

    func testAddingAnUnknownIDFailsPermanentlyNamingIt() async throws {
        let failure = try failure(of: await client().add("no-such-device"))
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 404)
        XCTAssertTrue(failure.message.contains("'no-such-device'"), failure.message)
        XCTAssertTrue(failure.message.contains(backend.baseURL), failure.message)
    }

    func testPingClearAndImOnItReachThePersonsDevice() async throws {
        _ = try await client().add(LoopbackBackend.device).get()
        try await client().ping(LoopbackBackend.device).get()
        let pings = try backend.server.pings(device: LoopbackBackend.device)
        XCTAssertEqual(pings.map(\.ping.responderName), ["Anna"])
        let pending = try await client().fetch().get()[LoopbackBackend.device]?.report.pingPending
        XCTAssertEqual(pending, true)
        let poll = try await backend.client(transport: transport).pendingPings(nil, .zero).get()
        XCTAssertEqual(poll.pings.map(\.responderName), ["Anna"], "the person's own ping poll gets it")

        try await client().clearPing(LoopbackBackend.device).get()
        let stillPending = try await client().fetch().get()[LoopbackBackend.device]?.report.pingPending
        XCTAssertEqual(stillPending, false)
        let polled = try await backend.client(transport: transport).pendingPings(nil, .zero).get().pings
        XCTAssertEqual(polled, [])

        try await client().onIt(LoopbackBackend.device, "Anna").get()
        let onIt = try await client().fetch().get()[LoopbackBackend.device]?.report.onIt
        XCTAssertEqual(onIt, "Anna")
        let page = try await backend.client(transport: transport).fetchNotifications(nil).get()
        XCTAssertEqual(page.notifications.map(\.title), ["Anna is on it"])
    }

    func testAStrangerCannotPingAndIsToldWhy() async throws {
        let failure = try failure(of: await client(token: "token-for-a-stranger").ping(LoopbackBackend.device))
        XCTAssertEqual(failure.httpStatus, 403)
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("does not follow '\(LoopbackBackend.device)'"), failure.message)
        XCTAssertEqual(try backend.server.pings(device: LoopbackBackend.device), [])
    }

    func testRemovingStopsFollowingAndIsIdempotent() async throws {
        _ = try await client().add(LoopbackBackend.device).get()
        try await client().remove(LoopbackBackend.device).get()
        try await client().remove(LoopbackBackend.device).get()
        let fetched = try await client().fetch().get()
        XCTAssertEqual(fetched, [:])
    }

    func testAWrongTokenAndServerFaultsAreFailuresNamingTheServer() async throws {
        let unauthorized = try failure(of: await client(token: "not-a-token").fetch())
        XCTAssertEqual(unauthorized.httpStatus, 401)
        XCTAssertTrue(unauthorized.message.contains("GET \(backend.baseURL)/v1/dependents"), unauthorized.message)

        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 500), Fault(.malformedReply), Fault(.htmlPage, status: 502)]))
        let serverError = try failure(of: await client().fetch())
        XCTAssertEqual(serverError.kind, .transient)
        XCTAssertTrue(serverError.message.contains("HTTP 500"), serverError.message)
        let malformed = try failure(of: await client().fetch())
        XCTAssertEqual(malformed.kind, .permanent)
        XCTAssertTrue(malformed.message.contains("cannot read"), malformed.message)
        let page = try failure(of: await client().fetch())
        XCTAssertTrue(page.message.contains("an HTML page titled \"502 Bad Gateway\""), page.message)
    }

    /// A server answering `body` with 200 to everything.
    func stubbed(_ body: String) throws -> DependentsClient {
        let server = try HTTPServer(port: 0) { _ in .respond(ServerResponse(status: 200, body: Array(body.utf8))) }
        stub = server
        return client(baseURL: "http://127.0.0.1:\(server.port)")
    }

    static func entry(status: String = "checked_in", lastCheckIn: String = "null") -> String {
        #"{"id": "mum", "name": "Mum", "status": "\#(status)", "lastCheckIn": \#(lastCheckIn), "deadline": null, "#
            + #""pingPending": false, "onIt": null}"#
    }

    static func list(_ entries: String...) -> String {
        #"{"dependents": [\#(entries.joined(separator: ", "))]}"#
    }

    func testTheStubIsReadWhenItSaysWhatTheAPISays() async throws {
        let fetched = try await stubbed(Self.list(Self.entry(lastCheckIn: #""2026-11-18T11:06:40Z""#))).fetch().get()
        XCTAssertEqual(fetched["mum"]?.report.status, .checkedIn)
        XCTAssertEqual(fetched["mum"]?.report.lastCheckIn, WallTime(secondsSinceEpoch: 1_795_000_000))
    }

    func testAnUnknownStatusIsAFailureNamingItNeverCheckedIn() async throws {
        let failure = try failure(of: try await stubbed(Self.list(Self.entry(status: "fine"))).fetch())
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("dependent 'mum' in status 'fine'"), failure.message)
        XCTAssertTrue(failure.message.contains("GET http://127.0.0.1:"), failure.message)
    }

    func testATimeThatIsNotRFC3339IsAFailureNamingTheField() async throws {
        let failure = try failure(of: try await stubbed(Self.list(Self.entry(lastCheckIn: #""yesterday""#))).fetch())
        XCTAssertTrue(failure.message.contains("lastCheckIn 'yesterday'"), failure.message)
    }

    func testAMissingFieldOrTheSameDependentTwiceIsAFailure() async throws {
        let missing = try failure(of: try await stubbed(#"{"dependents": [{"id": "mum", "status": "overdue"}]}"#).fetch())
        XCTAssertTrue(missing.message.contains("missing field 'pingPending'"), missing.message)
        stub?.stop()
        let twice = Self.list(Self.entry(), Self.entry(status: "overdue"))
        let duplicate = try failure(of: try await stubbed(twice).fetch())
        XCTAssertTrue(duplicate.message.contains("'mum' twice"), duplicate.message)
    }
}
