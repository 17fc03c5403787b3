import CheckInModels
import DeviceAPI
import DevServer
import TestSupport
import UplinkLive
import XCTest

/// `GET /v1/responders` of the reference backend over real HTTP on 127.0.0.1: the devices that
/// follow the person's device and the contacts the family added (`/admin/contacts`), with what
/// each is told; nothing but kinds of channel ever goes out.
final class RespondersRoutesTests: XCTestCase {
    static let person = "person-device", anna = "anna-device", unnamed = "unnamed-device"
    static let tokens = ["person-token": person, "anna-token": anna, "unnamed-token": unnamed]
    var directory: TemporaryDirectory!
    var server: DevServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-responders")
        server = try DevServer(DevServer.Options(databasePath: directory.file("server.sqlite"), tokens: Self.tokens,
                                                 names: [Self.anna: "Anna"]))
    }

    override func tearDown() {
        server.stop()
        directory.remove()
    }

    func call(_ method: HTTPRequest.Method, _ path: String, as token: String? = "person-token", body: String = "")
        throws -> (status: Int, text: String) {
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: method, url: server.baseURL + path, headers: token.map { ["Authorization: Bearer \($0)"] } ?? [],
            body: Array(body.utf8), timeout: .seconds(10))).get()
        return (response.status, String(decoding: response.body, as: UTF8.self))
    }

    func responders(of token: String = "person-token") throws -> [WireResponder] {
        let reply = try call(.get, DeviceAPIPath.responders, as: token)
        XCTAssertEqual(reply.status, 200, reply.text)
        return try APICoding.decode(ResponderList.self, from: Array(reply.text.utf8)).get().responders
    }

    func follow(_ token: String, _ method: HTTPRequest.Method = .put) throws {
        XCTAssertEqual(try call(method, DeviceAPIPath.dependent(Self.person), as: token).status, method == .put ? 200 : 204)
    }

    static let both = ["missed_check_in", "help_alert"]

    func testTheDevicesThatFollowThePersonAreTheirRespondersByNameUntilTheyStop() throws {
        XCTAssertEqual(try responders(), [], "nobody follows the person yet")
        try follow("anna-token")
        try follow("unnamed-token")
        XCTAssertEqual(try responders(), [
            WireResponder(id: Self.anna, name: "Anna", kind: "watcher", channels: ["device"], notifiedOf: Self.both),
            WireResponder(id: Self.unnamed, name: Self.unnamed, kind: "watcher", channels: ["device"], notifiedOf: Self.both),
        ], "in the order they started following; a device without a name goes by its id")
        XCTAssertEqual(try responders(of: "anna-token"), [], "following someone does not make them your responder")

        try follow("anna-token", .delete)
        XCTAssertEqual(try responders().map(\.id), [Self.unnamed])
    }

    func testContactsTheFamilyAddsAreRespondersWithTheirChannelsUntilRemoved() throws {
        try follow("anna-token")
        let added = try call(.put, "/admin/contacts?device=\(Self.person)&id=gp", as: nil,
                             body: #"{"name": "Dr Patel", "channels": ["sms", "call"], "notifiedOf": ["help_alert"]}"#)
        XCTAssertEqual(added.status, 200, added.text)
        try server.setContact(ResponderContact(name: "Tom", channels: ["app"]), id: "tom", device: Self.person)
        XCTAssertEqual(try responders(), [
            WireResponder(id: Self.anna, name: "Anna", kind: "watcher", channels: ["device"], notifiedOf: Self.both),
            WireResponder(id: "gp", name: "Dr Patel", kind: "contact", channels: ["sms", "call"], notifiedOf: ["help_alert"]),
            WireResponder(id: "tom", name: "Tom", kind: "contact", channels: ["app"], notifiedOf: Self.both),
        ], "a contact that names no topic is told of both")
        XCTAssertEqual(try responders(of: "anna-token"), [], "the contacts are the person's only")

        try server.setContact(ResponderContact(name: "Dr Patel", channels: ["email"]), id: "gp", device: Self.person)
        XCTAssertEqual(try responders().dropFirst().first?.channels, ["email"], "replaced in its place")
        XCTAssertEqual(try call(.delete, "/admin/contacts?device=\(Self.person)&id=gp", as: nil).status, 204)
        XCTAssertEqual(try call(.delete, "/admin/contacts?device=\(Self.person)&id=gp", as: nil).status, 204, "idempotent")
        XCTAssertEqual(try responders().map(\.id), [Self.anna, "tom"])
    }

    func testAContactWithAnAddressAnUnknownTopicOrADevicesIDIsRefusedSayingWhy() throws {
        let path = "/admin/contacts?device=\(Self.person)&id=gp"
        for (body, expected) in [
            (#"{"name": "Dr Patel", "channels": ["+44 7700 900123"]}"#, "never an address"),
            (#"{"name": "Dr Patel", "channels": ["0123456789"]}"#, "never an address"),
            (#"{"name": "Dr Patel", "channels": ["patel@example.org"]}"#, "never an address"),
            (#"{"name": "Dr Patel", "channels": []}"#, "one or more kinds of channel"),
            (#"{"name": "", "channels": ["sms"]}"#, "name must be"),
            (#"{"name": "Dr Patel", "channels": ["sms"], "notifiedOf": ["everything"]}"#, "missed_check_in, help_alert"),
            (#"{"name": "Dr Patel", "channels": ["sms"], "notifiedOf": []}"#, "missed_check_in, help_alert"),
            (#"{"name": "Dr Patel"}"#, "missing field 'channels'"),
        ] {
            let reply = try call(.put, path, as: nil, body: body)
            XCTAssertEqual(reply.status, 400, body)
            XCTAssertTrue(reply.text.contains(expected), "\(body): \(reply.text)")
        }
        let device = try call(.put, "/admin/contacts?device=\(Self.person)&id=\(Self.anna)", as: nil,
                              body: #"{"name": "Anna", "channels": ["sms"]}"#)
        XCTAssertEqual(device.status, 400)
        XCTAssertTrue(device.text.contains("a device's id"), device.text)
        XCTAssertEqual(try call(.put, "/admin/contacts?device=\(Self.person)", as: nil, body: "{}").status, 400)
        XCTAssertEqual(try call(.post, path, as: nil, body: "{}").status, 405)
        XCTAssertThrowsError(try server.setContact(ResponderContact(name: "Dr Patel", channels: ["sms"], notifiedOf: ["x"]),
                                                   id: "gp", device: Self.person))
        XCTAssertEqual(try responders(), [], "nothing refused was stored")
    }

    func testTheRouteTakesTheDevicesTokenAndOnlyGET() throws {
        let unauthorized = try call(.get, DeviceAPIPath.responders, as: "no-such-token")
        XCTAssertEqual(unauthorized.status, 401)
        XCTAssertTrue(unauthorized.text.contains("token"), unauthorized.text)
        XCTAssertEqual(try call(.get, DeviceAPIPath.responders, as: nil).status, 401)
        XCTAssertEqual(try call(.post, DeviceAPIPath.responders).status, 405)
    }
}
