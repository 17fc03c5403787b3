import CheckInModels
import DeviceAPI
import DevServer
import RespondersClient
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The integrations of the device's own healthchecks checks as its responders, read from the
/// reference server's management API subset with the device's read-write key: each is told of
/// what the checks that notify it are about; a read-only key, checks not made yet and replies
/// that are not healthchecks' are failures that say what to do.
final class HealthchecksRespondersClientLoopbackTests: XCTestCase {
    static let email = HealthchecksChannel(id: "5d6f1a2b-0000-4000-8000-000000000001", name: "", kind: "email")
    static let phone = HealthchecksChannel(id: "5d6f1a2b-0000-4000-8000-000000000002", name: "Anna's phone", kind: "sms")
    static let slack = HealthchecksChannel(id: "5d6f1a2b-0000-4000-8000-000000000003", name: "ops", kind: "slack")
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var stub: HTTPServer?

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "hc-responders-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        stub?.stop()
        backend = nil
    }

    func checks(key: String = HealthchecksProject.devReadWriteKey, site: String? = nil) -> ManagedChecks {
        ManagedChecks(site: site ?? backend.baseURL, key: DeviceToken(secret: key), slugPrefix: "mum", timeout: .seconds(5),
                      transport: transport)
    }

    func client(key: String = HealthchecksProject.devReadWriteKey, site: String? = nil) -> RespondersClient {
        .healthchecks(checks(key: key, site: site))
    }

    /// The device makes its three checks, as its sync does: each notifies every integration there is.
    func deviceMakesItsChecks() async throws {
        let specs = [(CheckRole.checkIn, 3600), (.heartbeat, 900), (.alert, 31_536_000)].map { role, seconds in
            CheckSpec(role: role, slug: "mum-\(role.rawValue)", name: role.rawValue, timeout: .seconds(Int64(seconds)),
                      grace: .seconds(Int64(seconds)), description: role.rawValue)
        }
        _ = try await checks().client.sync(specs).get()
    }

    /// The family changes which integrations a check notifies, on healthchecks' site or API.
    func assign(_ channels: String, to slug: String) throws {
        let check = try XCTUnwrap(backend.server.healthchecksChecks.first { $0.slug == slug }, slug)
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: .post, url: backend.baseURL + HealthchecksPath.checks + check.uuid,
            headers: ["X-Api-Key: \(HealthchecksProject.devReadWriteKey)", "Content-Type: application/json"],
            body: APICoding.encode(HealthchecksCheckUpdate(channels: channels)), timeout: .seconds(5))).get()
        XCTAssertEqual(response.status, 200, String(decoding: response.body, as: UTF8.self))
    }

    func testTheIntegrationsOfTheDevicesChecksAreItsRespondersToldPerCheck() async throws {
        backend.server.addHealthchecksIntegration(Self.email)
        backend.server.addHealthchecksIntegration(Self.phone)
        try await deviceMakesItsChecks()
        let everyone = try await client().fetch().get()
        XCTAssertEqual(everyone, [
            SourcedResponder(id: Self.email.id, name: "email", kind: "email", channels: ["email"], told: [.missedCheckIn, .helpAlert]),
            SourcedResponder(id: Self.phone.id, name: "Anna's phone", kind: "sms", channels: ["sms"],
                             told: [.missedCheckIn, .helpAlert]),
        ], "the device's checks notify every integration: each is told of both; an unnamed one goes by its kind")

        try assign("Anna's phone", to: "mum-alert")
        backend.server.addHealthchecksIntegration(Self.slack, assignedToAllChecks: false)
        try assign(Self.slack.id, to: "mum-heartbeat")
        let perCheck = try await client().fetch().get()
        XCTAssertEqual(perCheck.map(\.id), [Self.email.id, Self.phone.id],
                       "an integration only the heartbeat check notifies tells nobody about the person")
        XCTAssertEqual(perCheck.map(\.told), [[.missedCheckIn], [.missedCheckIn, .helpAlert]])

        try assign("", to: "mum-check-in")
        try assign("", to: "mum-alert")
        let nobody = try await client().fetch().get()
        XCTAssertEqual(nobody, [], "checks that notify nobody: no responder, however many integrations the project has")
    }

    func testAReadOnlyKeyIsRefusedSayingTheReadWriteKeyIsNeeded() async throws {
        backend.server.addHealthchecksIntegration(Self.email)
        try await deviceMakesItsChecks()
        let failure = try failure(of: await client(key: HealthchecksProject.devReadOnlyKey).fetch())
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 401)
        XCTAssertTrue(failure.message.contains("[healthchecks] api_key_file"), failure.message)
        XCTAssertTrue(failure.message.contains("read-write"), failure.message)
        XCTAssertTrue(failure.message.contains("integrations"), failure.message)
        XCTAssertFalse(failure.message.contains(HealthchecksProject.devReadOnlyKey), "the key never goes into a message")
    }

    func testBeforeTheDevicesChecksExistTheFailureNamesTheirSlugs() async throws {
        backend.server.addHealthchecksIntegration(Self.email)
        let failure = try failure(of: await client().fetch())
        XCTAssertEqual(failure.kind, .transient, "the device's sync makes them")
        XCTAssertTrue(failure.message.contains("mum-check-in and mum-alert"), failure.message)
        try await deviceMakesItsChecks()
        let fetched = try await client().fetch().get()
        XCTAssertEqual(fetched.map(\.id), [Self.email.id])
    }

    func testAServerErrorIsTransient() async throws {
        try await deviceMakesItsChecks()
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 502, operation: "GET /api/v3/channels/")]))
        let failure = try failure(of: await client().fetch())
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertEqual(failure.httpStatus, 502)
    }

    // MARK: Replies the reference server would never give

    /// A server answering `channels` to the integrations' list, and to `?slug=` a check of that
    /// slug which notifies the email integration.
    func stubbed(channels: String) throws -> RespondersClient {
        stub?.stop()
        let server = try HTTPServer(port: 0) { request in
            guard request.path == HealthchecksPath.checks, let slug = request.query["slug"] else {
                return .respond(ServerResponse(status: 200, body: Array(channels.utf8)))
            }
            let check = HealthchecksCheck(name: slug, slug: slug, desc: nil, timeout: 3600, grace: 3600, status: "up", nPings: 1,
                                          lastPing: nil, uuid: CheckInID.random().description, pingURL: nil, updateURL: nil,
                                          pauseURL: nil, channels: Self.email.id)
            return .respond(ServerResponse(status: 200, body: APICoding.encode(HealthchecksCheckList(checks: [check]))))
        }
        stub = server
        return client(site: "http://127.0.0.1:\(server.port)")
    }

    func testTheStubIsReadWhenItSaysWhatHealthchecksSays() async throws {
        let entry = #"{"id": "\#(Self.email.id)", "name": "Mum's inbox", "kind": "email"}"#
        let fetched = try await stubbed(channels: #"{"channels": [\#(entry)]}"#).fetch().get()
        XCTAssertEqual(fetched, [SourcedResponder(id: Self.email.id, name: "Mum's inbox", kind: "email", channels: ["email"],
                                                  told: [.missedCheckIn, .helpAlert])])
    }

    func testAnIntegrationTwiceWrongTypesOrAKindThatIsNotAWordAreFailuresNotCrashes() async throws {
        let entry = #"{"id": "\#(Self.email.id)", "name": "", "kind": "email"}"#
        let twice = try failure(of: try await stubbed(channels: #"{"channels": [\#(entry), \#(entry)]}"#).fetch())
        XCTAssertTrue(twice.message.contains("integration \(Self.email.id) twice"), twice.message)
        let url = "https://hooks.example.org/secret"
        let webhook = #"{"id": "\#(Self.email.id)", "name": "", "kind": "\#(url)"}"#
        let notAWord = try failure(of: try await stubbed(channels: #"{"channels": [\#(webhook)]}"#).fetch())
        XCTAssertTrue(notAWord.message.contains("not a word"), notAWord.message)
        XCTAssertFalse(notAWord.message.contains(url), notAWord.message)
        let wrongType = try failure(of: try await stubbed(channels: #"{"channels": {"id": 1}}"#).fetch())
        XCTAssertEqual(wrongType.kind, .permanent)
        XCTAssertTrue(wrongType.message.contains("cannot read"), wrongType.message)
        let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let deep = try failure(of: try await stubbed(channels: #"{"channels": \#(nested)}"#).fetch())
        XCTAssertTrue(deep.message.contains("nested more than"), deep.message)
    }
}
