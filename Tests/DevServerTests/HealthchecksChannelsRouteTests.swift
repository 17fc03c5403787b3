import DeviceAPI
import DevServer
import TestSupport
import UplinkLive
import XCTest

/// The reference server's `GET /api/v3/channels/` and the integrations of its checks, as
/// healthchecks has them: the list takes the read-write key only; a check lists the ids of the
/// integrations it notifies (sorted, comma-separated) to a read-write key and not to a read-only
/// one; `channels` on create and update is `*`, `""` or ids and names.
final class HealthchecksChannelsRouteTests: XCTestCase {
    static let email = HealthchecksChannel(id: "0b1c9b4e-7d3a-4a59-9d61-0a4c2d1f0001", name: "", kind: "email")
    static let sms = HealthchecksChannel(id: "0b1c9b4e-7d3a-4a59-9d61-0a4c2d1f0002", name: "Anna's phone", kind: "sms")
    var directory: TemporaryDirectory!
    var server: DevServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-hc-channels")
        server = try DevServer(DevServer.Options(databasePath: directory.file("server.sqlite"), tokens: [:]))
        server.addHealthchecksIntegration(Self.email)
        server.addHealthchecksIntegration(Self.sms)
    }

    override func tearDown() {
        server.stop()
        directory.remove()
    }

    func call(_ method: HTTPRequest.Method, _ path: String, key: String? = HealthchecksProject.devReadWriteKey, body: String = "")
        throws -> (status: Int, body: [UInt8]) {
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: method, url: server.baseURL + path, headers: key.map { ["X-Api-Key: \($0)"] } ?? [], body: Array(body.utf8),
            timeout: .seconds(10))).get()
        return (response.status, response.body)
    }

    func check(_ reply: (status: Int, body: [UInt8])) throws -> HealthchecksCheck {
        XCTAssertTrue((200..<300).contains(reply.status), String(decoding: reply.body, as: UTF8.self))
        return try APICoding.decode(HealthchecksCheck.self, from: reply.body).get()
    }

    func testTheIntegrationsAreListedToTheReadWriteKeyOnly() throws {
        let listed = try call(.get, HealthchecksPath.channels)
        XCTAssertEqual(listed.status, 200)
        XCTAssertEqual(try APICoding.decode(HealthchecksChannelList.self, from: listed.body).get().channels, [Self.email, Self.sms])
        let readOnly = try call(.get, HealthchecksPath.channels, key: HealthchecksProject.devReadOnlyKey)
        XCTAssertEqual(readOnly.status, 401, "healthchecks' channels view is @authorize: read-write keys only")
        XCTAssertEqual(try call(.get, HealthchecksPath.channels, key: nil).status, 401)
    }

    func testACheckListsTheIntegrationsItNotifiesToTheReadWriteKeyOnly() throws {
        let all = try check(call(.post, HealthchecksPath.checks, body: #"{"slug": "all", "channels": "*"}"#))
        XCTAssertEqual(all.channels, "\(Self.email.id),\(Self.sms.id)")
        let none = try check(call(.post, HealthchecksPath.checks, body: #"{"slug": "none"}"#))
        XCTAssertEqual(none.channels, "", "made without channels: it notifies nobody")

        let uuid = try XCTUnwrap(none.uuid)
        let named = try check(call(.post, HealthchecksPath.checks + uuid, body: #"{"channels": "Anna's phone"}"#))
        XCTAssertEqual(named.channels, Self.sms.id, "by name")
        let unknown = try call(.post, HealthchecksPath.checks + uuid, body: #"{"channels": "Bob's phone"}"#)
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(String(decoding: unknown.body, as: UTF8.self).contains("invalid channel identifier: Bob's phone"))
        XCTAssertEqual(try check(call(.get, HealthchecksPath.checks + uuid)).channels, Self.sms.id, "a refused update changes nothing")

        let readOnly = try APICoding.decode(HealthchecksCheckList.self, from: call(.get, HealthchecksPath.checks,
                                                                                    key: HealthchecksProject.devReadOnlyKey).body).get()
        XCTAssertEqual(readOnly.checks.map(\.channels), [nil, nil])
    }

    func testAnIntegrationAddedLaterGoesToEveryCheckUnlessToldOtherwise() throws {
        let made = try check(call(.post, HealthchecksPath.checks, body: #"{"slug": "mum", "channels": ""}"#))
        let webhook = HealthchecksChannel(id: "0b1c9b4e-7d3a-4a59-9d61-0a4c2d1f0003", name: "", kind: "webhook")
        server.addHealthchecksIntegration(webhook)
        server.addHealthchecksIntegration(HealthchecksChannel(id: "0b1c9b4e-7d3a-4a59-9d61-0a4c2d1f0004", name: "", kind: "slack"),
                                          assignedToAllChecks: false)
        XCTAssertEqual(try check(call(.get, HealthchecksPath.checks + XCTUnwrap(made.uuid))).channels, webhook.id)
        XCTAssertEqual(server.healthchecksChecks.first?.assigned, [webhook.id])
    }
}
