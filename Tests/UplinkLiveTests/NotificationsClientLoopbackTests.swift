import CheckInModels
import DevServer
import DeviceAPI
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

/// Notifications between the live client and the reference server over real loopback HTTP. (A sync
/// of the whole device with that server: DeviceRuntimeTests' NotificationsSyncTests.)
final class NotificationsClientLoopbackTests: XCTestCase {
    var backend: LoopbackBackend!
    var transport: CurlTransport!
    var client: UplinkClient!
    static let device = LoopbackBackend.device

    override func setUp() async throws {
        backend = try LoopbackBackend()
        transport = try CurlTransport(threadName: "notifications-test")
        client = backend.client(transport: transport)
    }

    override func tearDown() async throws {
        transport.shutdown(wait: true)
        backend = nil
    }

    @discardableResult
    private func create(_ type: String, _ title: String, body: String? = nil) throws -> WireNotification {
        try backend.server.createNotification(NewNotification(type: type, title: title, body: body, relatedContactId: "c-1"),
                                              device: Self.device)
    }

    private func change(_ operation: NotificationChange.Operation, _ id: String? = nil, through cursor: String? = nil)
        -> NotificationChange {
        NotificationChange(id: CheckInID.random().description, operation: operation, notificationID: id,
                           at: WallTime(secondsSinceEpoch: 1_795_000_000), throughCursor: cursor)
    }

    func testFetchesFromTheCursorSeeChangesAndTombstones() async throws {
        let ping = try create("ping", "Anna pinged you", body: "Are you OK?")
        let added = try create("added", "Bob added you as a responder")
        let first = try await client.fetchNotifications(nil).get()
        XCTAssertEqual(first.notifications.map(\.id), [ping.id, added.id])
        XCTAssertEqual(first.notifications.first?.body, "Are you OK?")
        XCTAssertEqual(first.notifications.first?.relatedContactID, "c-1")
        XCTAssertEqual(first.notifications.first?.type, .ping)
        XCTAssertFalse(first.hasMore)
        let cursor = try XCTUnwrap(first.cursor)
        let nothingNew = try await client.fetchNotifications(cursor).get()
        XCTAssertEqual(nothingNew, NotificationPage(cursor: cursor))

        let read = change(.markRead, ping.id)
        let cleared = change(.clear, added.id)
        let acknowledged = try await client.pushNotificationChanges([read, cleared]).get()
        XCTAssertEqual(acknowledged, [read.id, cleared.id])
        let changed = try await client.fetchNotifications(cursor).get()
        XCTAssertEqual(changed.notifications.map(\.id), [ping.id])
        XCTAssertEqual(changed.notifications.first?.isRead, true)
        XCTAssertEqual(changed.clearedIDs, [added.id])
        XCTAssertEqual(try backend.server.notifications(device: Self.device).map(\.cleared), [nil, true])

        // The same changes again (a lost acknowledgement): acknowledged, nothing moves.
        _ = try await client.pushNotificationChanges([read, cleared]).get()
        let afterResend = try await client.fetchNotifications(changed.cursor).get()
        XCTAssertEqual(afterResend.notifications.count + afterResend.clearedIDs.count, 0)
    }

    func testAllChangesReachOnlyNotificationsUpToTheirCursor() async throws {
        try create("alert", "Help requested")
        try create("role", "Carol is now a dependent")
        let seen = try await client.fetchNotifications(nil).get()
        let later = try create("checkIn", "Check-in overdue")
        _ = try await client.pushNotificationChanges([change(.markAllRead, through: seen.cursor)]).get()
        var stored = try backend.server.notifications(device: Self.device)
        XCTAssertEqual(stored.map(\.isRead), [true, true, false], "the one the device had not seen stays unread")
        _ = try await client.pushNotificationChanges([change(.clearAll, through: seen.cursor)]).get()
        stored = try backend.server.notifications(device: Self.device)
        XCTAssertEqual(stored.filter { $0.cleared != true }.map(\.id), [later.id])
    }

    func testPagesFollowOneAnotherWithoutLosingOrRepeatingAny() async throws {
        var created: [String] = []
        for index in 0..<450 { created.append(try create("ping", "ping \(index)").id) }
        var cursor: String?
        var received: [String] = []
        var pages = 0
        repeat {
            let page = try await client.fetchNotifications(cursor).get()
            received += page.notifications.map(\.id)
            cursor = page.cursor
            pages += 1
            if !page.hasMore { break }
        } while pages < 10
        XCTAssertEqual(received, created)
        XCTAssertEqual(pages, 3)
    }

    func testFaultsAreClassifiedAsForEveryOtherRequest() async throws {
        try create("ping", "Anna pinged you")
        backend.server.inject(FaultUpdate(schedule: [Fault(.status, status: 503, retryAfterSeconds: 4), Fault(.malformedReply),
                                                     Fault(.dropAfterStore)]))
        guard case let .failure(unavailable) = await client.fetchNotifications(nil) else { return XCTFail("503 was not a failure") }
        XCTAssertEqual(unavailable.kind, .transient)
        XCTAssertEqual(unavailable.retryAfter, .seconds(4))
        guard case let .failure(malformed) = await client.fetchNotifications(nil) else { return XCTFail("HTML was accepted") }
        XCTAssertEqual(malformed.kind, .permanent)

        let id = try backend.server.notifications(device: Self.device)[0].id
        let read = change(.markRead, id)
        guard case let .failure(lost) = await client.pushNotificationChanges([read]) else {
            return XCTFail("a dropped connection was not a failure")
        }
        XCTAssertEqual(lost.kind, .transient)
        XCTAssertEqual(try backend.server.notifications(device: Self.device).map(\.isRead), [true], "applied before the drop")
        let again = try await client.pushNotificationChanges([read]).get()
        XCTAssertEqual(again, [read.id])

        let revoked = backend.client(token: "revoked", transport: transport)
        guard case let .failure(refused) = await revoked.fetchNotifications(nil) else { return XCTFail("a bad token was accepted") }
        XCTAssertEqual(refused.kind, .permanent)
        XCTAssertEqual(refused.httpStatus, 401)
    }
}
