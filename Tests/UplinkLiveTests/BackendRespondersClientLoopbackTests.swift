import CheckInModels
import DependentsClient
import DeviceAPI
import DevServer
import RespondersClient
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// The backend's responders client against the reference backend over loopback: the devices that
/// follow the person's device and the contacts the family added are listed with what they are
/// told; a reply that is not what the API says is a failure naming the route and the fault, and
/// never shows an address.
final class BackendRespondersClientLoopbackTests: XCTestCase {
    static let watcher = "watcher-device", watcherToken = "token-for-the-watcher"
    static let both: Set<ResponderTopic> = [.missedCheckIn, .helpAlert]
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var stub: HTTPServer?

    override func setUp() async throws {
        backend = try LoopbackBackend(tokens: [LoopbackBackend.token: LoopbackBackend.device, Self.watcherToken: Self.watcher],
                                      names: [LoopbackBackend.device: "Mum", Self.watcher: "Anna"])
        transport = try CurlTransport(threadName: "responders-test")
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        stub?.stop()
        backend = nil
    }

    func client(token: String = LoopbackBackend.token, baseURL: String? = nil) -> RespondersClient {
        .backend(baseURL: baseURL ?? backend.baseURL, token: DeviceToken(secret: token), timeout: .seconds(5), transport: transport)
    }

    /// The watcher's own device, through its live dependents client.
    var watcherDevice: DependentsClient {
        .backend(baseURL: backend.baseURL, token: DeviceToken(secret: Self.watcherToken), timeout: .seconds(5), transport: transport)
    }

    func testAWatcherThatFollowsTheDeviceIsAResponderByNameUntilItStops() async throws {
        let before = try await client().fetch().get()
        XCTAssertEqual(before, [])
        _ = try await watcherDevice.add(LoopbackBackend.device).get()
        let following = try await client().fetch().get()
        XCTAssertEqual(following, [SourcedResponder(id: Self.watcher, name: "Anna", kind: "watcher", channels: ["device"],
                                                    told: Self.both)])
        let theWatchers = try await client(token: Self.watcherToken).fetch().get()
        XCTAssertEqual(theWatchers, [], "the person is not the watcher's responder")

        try await watcherDevice.remove(LoopbackBackend.device).get()
        let after = try await client().fetch().get()
        XCTAssertEqual(after, [])
    }

    func testAContactTheFamilyAddedIsAResponderWithItsChannelsAndTopics() async throws {
        try backend.server.setContact(ResponderContact(name: "Dr Patel", channels: ["sms", "call"], notifiedOf: ["help_alert"]),
                                      id: "gp", device: LoopbackBackend.device)
        try backend.server.setContact(ResponderContact(name: "Tom", channels: ["app"]), id: "tom", device: LoopbackBackend.device)
        let fetched = try await client().fetch().get()
        XCTAssertEqual(fetched, [
            SourcedResponder(id: "gp", name: "Dr Patel", kind: "contact", channels: ["sms", "call"], told: [.helpAlert]),
            SourcedResponder(id: "tom", name: "Tom", kind: "contact", channels: ["app"], told: Self.both),
        ])
    }

    func testAWrongTokenIsPermanentAndNamesTheTokenFile() async throws {
        let failure = try failure(of: await client(token: "not-a-token").fetch())
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertEqual(failure.httpStatus, 401)
        XCTAssertTrue(failure.message.contains("GET \(backend.baseURL)/v1/responders"), failure.message)
        XCTAssertTrue(failure.message.contains("compare [uplink] token_file"), failure.message)
        XCTAssertFalse(failure.message.contains("not-a-token"), "the token never goes into a message")
    }

    func testServerFaultsAreTransientAndAReplyThatIsNotTheAPIIsPermanent() async throws {
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503), Fault(.malformedReply)]))
        let unavailable = try failure(of: await client().fetch())
        XCTAssertEqual(unavailable.kind, .transient)
        XCTAssertEqual(unavailable.httpStatus, 503)
        let malformed = try failure(of: await client().fetch())
        XCTAssertEqual(malformed.kind, .permanent)
        XCTAssertTrue(malformed.message.contains("GET \(backend.baseURL)/v1/responders answered 200"), malformed.message)
        XCTAssertTrue(malformed.message.contains("cannot read"), malformed.message)
    }

    // MARK: Replies the reference backend would never give

    /// A server answering `body` with 200 to everything.
    func stubbed(_ body: String) throws -> RespondersClient {
        stub?.stop()
        let server = try HTTPServer(port: 0) { _ in .respond(ServerResponse(status: 200, body: Array(body.utf8))) }
        stub = server
        return client(baseURL: "http://127.0.0.1:\(server.port)")
    }

    static func entry(id: String = "anna", name: String = "Anna", kind: String = "contact", channels: String = #"["sms"]"#,
                      notifiedOf: String = #"["missed_check_in", "help_alert"]"#) -> String {
        #"{"id": "\#(id)", "name": "\#(name)", "kind": "\#(kind)", "channels": \#(channels), "notifiedOf": \#(notifiedOf)}"#
    }

    static func list(_ entries: String...) -> String {
        #"{"responders": [\#(entries.joined(separator: ", "))]}"#
    }

    func testUnknownTopicsAreLeftOutAndUnknownKindsShownAsTheyAre() async throws {
        let fetched = try await stubbed(Self.list(Self.entry(kind: "neighbour", notifiedOf: #"["help_alert", "low_battery"]"#),
                                                  Self.entry(id: "bob", name: "", notifiedOf: #"["everything"]"#))).fetch().get()
        XCTAssertEqual(fetched, [
            SourcedResponder(id: "anna", name: "Anna", kind: "neighbour", channels: ["sms"], told: [.helpAlert]),
            SourcedResponder(id: "bob", name: "bob", kind: "contact", channels: ["sms"], told: []),
        ], "a topic the device does not know is never read as one it knows; a responder without a name goes by its id")
    }

    func testTheSameResponderTwiceIsAFailureNamingIt() async throws {
        let failure = try failure(of: try await stubbed(Self.list(Self.entry(), Self.entry(name: "Anna again"))).fetch())
        XCTAssertEqual(failure.kind, .permanent)
        XCTAssertTrue(failure.message.contains("responder 'anna' twice"), failure.message)
        XCTAssertTrue(failure.message.contains("/v1/responders"), failure.message)
    }

    func testAnAddressWhereAKindOfChannelBelongsIsRefusedWithoutShowingIt() async throws {
        for address in ["+44 7700 900123", "anna@example.org", "https://hooks.example.org/T0/B0/secret"] {
            let failure = try failure(of: try await stubbed(Self.list(Self.entry(channels: #"["sms", "\#(address)"]"#))).fetch())
            XCTAssertTrue(failure.message.contains("responder 'anna' whose channels[1] is not a kind of channel"), failure.message)
            XCTAssertFalse(failure.message.contains(address), failure.message)
        }
    }

    func testWrongTypesDeepNestingAndTooManyRespondersAreFailuresNotCrashes() async throws {
        let wrongType = try failure(of: try await stubbed(Self.list(Self.entry(channels: #""sms""#))).fetch())
        XCTAssertTrue(wrongType.message.contains("channels"), wrongType.message)
        let missing = try failure(of: try await stubbed(#"{"responders": [{"id": "anna", "name": "Anna"}]}"#).fetch())
        XCTAssertTrue(missing.message.contains("missing field 'kind'"), missing.message)
        let nested = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        let deep = try failure(of: try await stubbed(#"{"responders": \#(nested)}"#).fetch())
        XCTAssertTrue(deep.message.contains("nested more than"), deep.message)
        let many = (0...RespondersClient.mostResponders).map { Self.entry(id: "r\($0)") }.joined(separator: ", ")
        let tooMany = try failure(of: try await stubbed(#"{"responders": [\#(many)]}"#).fetch())
        XCTAssertTrue(tooMany.message.contains("\(RespondersClient.mostResponders + 1) responders"), tooMany.message)
    }

    func testANameIsShownOnOneLine() async throws {
        let long = String(repeating: "x", count: 300)
        let fetched = try await stubbed(Self.list(Self.entry(name: #"Anna\nsecond line\u0007"#), Self.entry(id: "long", name: long)))
            .fetch().get()
        XCTAssertEqual(fetched.first?.name, "Anna second line ")
        XCTAssertEqual(fetched.last?.name.count, 100)
        XCTAssertEqual(fetched.last?.name.last, "…")
    }
}
