import CheckInModels
import DeviceAPI
import DevServer
import TestSupport
import UplinkLive
import XCTest

/// The dependents routes of the reference backend over real HTTP on 127.0.0.1: a person whose
/// device checks in, goes quiet, goes overdue and asks for help; a watcher that follows them,
/// pings, withdraws the ping and says "I'm on it"; a stranger that may do none of it. The
/// server's clock is the test's.
final class DependentsRoutesTests: XCTestCase {
    static let person = "person-device", watcher = "watcher-device", stranger = "stranger-device"
    static let tokens = ["person-token": person, "watcher-token": watcher, "stranger-token": stranger]
    var directory: TemporaryDirectory!
    var clock: SettableWallClock!
    var server: DevServer!

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-dependents")
        clock = SettableWallClock()
        try startServer()
    }

    /// Serves (again) from the same database, on a free port.
    func startServer() throws {
        server = try DevServer(DevServer.Options(databasePath: directory.file("server.sqlite"), tokens: Self.tokens,
                                                 names: [Self.watcher: "Anna"], clock: clock.read))
    }

    override func tearDown() {
        server.stop()
        directory.remove()
    }

    struct Reply {
        var status: Int
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
    }

    func call(_ method: HTTPRequest.Method, _ path: String, as token: String = "watcher-token", body: String = "")
        throws -> Reply {
        let response = try CurlTransport.performBlocking(HTTPRequest(
            method: method, url: server.baseURL + path, headers: ["Authorization: Bearer \(token)", "Content-Type: application/json"],
            body: Array(body.utf8), timeout: .seconds(10))).get()
        return Reply(status: response.status, body: response.body)
    }

    func decode<T: Decodable>(_ type: T.Type, _ reply: Reply, file: StaticString = #filePath, line: UInt = #line) throws -> T {
        XCTAssertTrue((200..<300).contains(reply.status), "HTTP \(reply.status): \(reply.text)", file: file, line: line)
        return try APICoding.decode(type, from: reply.body).get()
    }

    func dependents() throws -> [WireDependent] {
        try decode(DependentList.self, call(.get, DeviceAPIPath.dependents)).dependents
    }

    func only() throws -> WireDependent {
        let list = try dependents()
        XCTAssertEqual(list.map(\.id), [Self.person])
        return try XCTUnwrap(list.first)
    }

    /// The person's device sends what a press makes, pressed now on the server's clock.
    func personChecksIn(path: String = DeviceAPIPath.checkIns) throws {
        let item = UploadedCheckIn(id: CheckInID.random().description, wallTime: clock.now.rfc3339Microseconds,
                                   wallClockSynchronized: true, uptimeMicroseconds: 1, bootId: "boot", source: "button")
        let body = path == DeviceAPIPath.alerts ? APICoding.encode(item) : APICoding.encode(CheckInBatch(checkIns: [item]))
        XCTAssertEqual(try call(.post, path, as: "person-token", body: String(decoding: body, as: UTF8.self)).status, 200)
    }

    func personSendsHeartbeat() throws {
        XCTAssertEqual(try call(.post, DeviceAPIPath.heartbeat, as: "person-token",
                                body: #"{"bootId": "boot", "uptimeSeconds": 5, "queueDepth": 0}"#).status, 204)
    }

    func testADeviceLearnsItsOwnIDAndName() throws {
        XCTAssertEqual(try decode(DeviceIdentity.self, call(.get, DeviceAPIPath.device)), DeviceIdentity(id: Self.watcher, name: "Anna"))
        let person = try call(.get, DeviceAPIPath.device, as: "person-token")
        XCTAssertEqual(person.text, #"{"id":"person-device","name":null}"#, "the name is there, as null, when the device has none")
        XCTAssertEqual(try call(.get, DeviceAPIPath.device, as: "no-such-token").status, 401)
        XCTAssertEqual(try call(.post, DeviceAPIPath.device).status, 405)
    }

    func testFollowingAnUnknownDeviceIsANotFoundNamingIt() throws {
        let reply = try call(.put, DeviceAPIPath.dependent("no such device"))
        XCTAssertEqual(reply.status, 404)
        XCTAssertTrue(reply.text.contains("'no such device'"), reply.text)
        XCTAssertEqual(try dependents(), [])
        XCTAssertEqual(try call(.put, DeviceAPIPath.dependent(Self.watcher)).status, 400, "a device cannot watch itself")
        XCTAssertEqual(try call(.get, DeviceAPIPath.dependents + "/" + Self.person + "/pong").status, 404)
        XCTAssertEqual(try call(.get, DeviceAPIPath.dependent(Self.person)).status, 405)
    }

    func testTheWatcherSeesThePersonCheckInGoQuietGoOverdueAndAskForHelp() throws {
        let followed = try decode(WireDependent.self, call(.put, DeviceAPIPath.dependent(Self.person)))
        XCTAssertEqual(followed.status, "unknown", "no check-in yet")
        XCTAssertNil(followed.lastCheckIn)
        XCTAssertNil(followed.deadline)
        XCTAssertEqual(try call(.put, DeviceAPIPath.dependent(Self.person)).status, 200, "following again changes nothing")

        try personChecksIn()
        let pressed = clock.now
        var person = try only()
        XCTAssertEqual(person.status, "checked_in")
        XCTAssertEqual(person.lastCheckIn, pressed.rfc3339Microseconds)
        XCTAssertEqual(person.deadline, (pressed + .seconds(86_400)).rfc3339Microseconds, "the default settings: one day")

        clock.advance(.seconds(23 * 3600))
        XCTAssertEqual(try only().status, "silent", "nothing heard from their device for 23 hours")
        try personSendsHeartbeat()
        XCTAssertEqual(try only().status, "reminder", "heard from, and within 2 hours of the deadline")

        clock.advance(.seconds(2 * 3600))
        try personSendsHeartbeat()
        XCTAssertEqual(try only().status, "overdue")

        try personChecksIn(path: DeviceAPIPath.alerts)
        person = try only()
        XCTAssertEqual(person.status, "help_alert")
        XCTAssertEqual(person.lastCheckIn, pressed.rfc3339Microseconds)

        clock.advance(.seconds(60))
        try personChecksIn()
        XCTAssertEqual(try only().status, "checked_in", "a check-in after the alert ends it")
    }

    func testAServerThatWasDownCountsSilenceFromItsOwnStart() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        try personChecksIn()
        server.stop()
        clock.advance(.seconds(3600))
        try startServer()
        XCTAssertEqual(try only().status, "checked_in", "the hour the server was down is not the person's silence")
        clock.advance(.seconds(1801))
        XCTAssertEqual(try only().status, "silent", "30 minutes of the server's own watch without a request")
    }

    func testAwayModeFromTheSettingsSyncIsAway() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        try personChecksIn()
        let away = DeviceSettings(intervalSeconds: 3600, reminderSeconds: 600, version: 1, awayFrom: clock.now.rfc3339Microseconds,
                                  awayUntil: (clock.now + .seconds(7 * 86_400)).rfc3339Microseconds)
        XCTAssertEqual(try call(.put, DeviceAPIPath.settings, as: "person-token",
                                body: String(decoding: APICoding.encode(away), as: UTF8.self)).status, 200)
        clock.advance(.seconds(3 * 86_400))
        let person = try only()
        XCTAssertEqual(person.status, "away", "three days without a word, but away")
        XCTAssertNil(person.deadline)
    }

    func testAWatcherPingReachesThePersonsPingPollAndItsWithdrawalTakesItBack() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        let created = try call(.post, DeviceAPIPath.dependentPing(Self.person))
        XCTAssertEqual(created.status, 201)
        let ping = try decode(Ping.self, created)
        XCTAssertEqual(ping.responderName, "Anna", "the watcher's name, as the person's device shows it")
        XCTAssertEqual(ping.responderId, Self.watcher)
        XCTAssertEqual(try decode(Ping.self, call(.post, DeviceAPIPath.dependentPing(Self.person))).id, ping.id,
                       "asking again while it waits answers the same ping")

        let polled = try decode(PingList.self, call(.get, DeviceAPIPath.pings + "?wait=0", as: "person-token"))
        XCTAssertEqual(polled.pings, [ping], "the person's device gets it through its ping poll")
        XCTAssertTrue(try only().pingPending)

        XCTAssertEqual(try call(.delete, DeviceAPIPath.dependentPing(Self.person)).status, 204)
        XCTAssertEqual(try decode(PingList.self, call(.get, DeviceAPIPath.pings + "?wait=0", as: "person-token")).pings, [],
                       "withdrawn: no longer pending for the person's device")
        XCTAssertFalse(try only().pingPending)
        XCTAssertNotNil(try server.pings(device: Self.person).first?.withdrawnAt)
        XCTAssertEqual(try call(.delete, DeviceAPIPath.dependentPing(Self.person)).status, 204, "withdrawing again changes nothing")

        let again = try decode(Ping.self, call(.post, DeviceAPIPath.dependentPing(Self.person)))
        XCTAssertNotEqual(again.id, ping.id, "a ping after a withdrawal is a new one")
    }

    func testAnsweringThePingEndsPingPending() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        let ping = try decode(Ping.self, call(.post, DeviceAPIPath.dependentPing(Self.person)))
        let answer = PingResponseBatch(responses: [UploadedPingResponse(
            id: CheckInID.random().description, pingId: ping.id, checkInId: CheckInID.random().description,
            wallTime: clock.now.rfc3339Microseconds)])
        XCTAssertEqual(try call(.post, DeviceAPIPath.pingResponses, as: "person-token",
                                body: String(decoding: APICoding.encode(answer), as: UTF8.self)).status, 200)
        XCTAssertFalse(try only().pingPending)
    }

    func testImOnItShowsToWatchersUntilTheNextCheckInAndReachesThePersonsNotifications() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        try personChecksIn()
        clock.advance(.seconds(60))
        XCTAssertEqual(try call(.post, DeviceAPIPath.dependentOnIt(Self.person), body: #"{"watcher": "Anna"}"#).status, 204)
        XCTAssertEqual(try only().onIt, "Anna")
        let notifications = try decode(NotificationList.self, call(.get, DeviceAPIPath.notifications, as: "person-token"))
        XCTAssertEqual(notifications.notifications.map(\.title), ["Anna is on it"])
        XCTAssertEqual(notifications.notifications.first?.relatedContactId, Self.watcher)

        XCTAssertEqual(try call(.post, DeviceAPIPath.dependentOnIt(Self.person), body: #"{"who": "Anna"}"#).status, 400)
        XCTAssertEqual(try call(.post, DeviceAPIPath.dependentOnIt(Self.person), body: #"{"watcher": ""}"#).status, 400)

        clock.advance(.seconds(60))
        try personChecksIn()
        XCTAssertNil(try only().onIt, "their check-in ends it")
    }

    func testAStrangerMayNotPingWithdrawOrSayItIsOnIt() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        for (method, path, body) in [(HTTPRequest.Method.post, DeviceAPIPath.dependentPing(Self.person), ""),
                                     (.delete, DeviceAPIPath.dependentPing(Self.person), ""),
                                     (.post, DeviceAPIPath.dependentOnIt(Self.person), #"{"watcher": "Eve"}"#)] {
            let reply = try call(method, path, as: "stranger-token", body: body)
            XCTAssertEqual(reply.status, 403, "\(method) \(path): \(reply.text)")
            XCTAssertTrue(reply.text.contains("does not watch"), reply.text)
        }
        XCTAssertEqual(try server.pings(device: Self.person), [])
        XCTAssertEqual(try call(.post, DeviceAPIPath.dependentPing("nobody")).status, 404)
        XCTAssertEqual(try decode(DependentList.self, call(.get, DeviceAPIPath.dependents, as: "stranger-token")).dependents, [])
    }

    func testUnfollowingEndsTheWatchAndWithdrawsItsPing() throws {
        _ = try call(.put, DeviceAPIPath.dependent(Self.person))
        _ = try call(.post, DeviceAPIPath.dependentPing(Self.person))
        XCTAssertEqual(try call(.delete, DeviceAPIPath.dependent(Self.person)).status, 204)
        XCTAssertEqual(try dependents(), [])
        XCTAssertEqual(try decode(PingList.self, call(.get, DeviceAPIPath.pings + "?wait=0", as: "person-token")).pings, [])
        XCTAssertEqual(try call(.post, DeviceAPIPath.dependentPing(Self.person)).status, 403)
        XCTAssertEqual(try call(.delete, DeviceAPIPath.dependent(Self.person)).status, 204, "idempotent")
    }
}
