import CheckInModels
import CheckInStoreClient
@testable import CheckInStoreLive
import SQLiteDatabase
import TestSupport
import XCTest

/// Notifications on a real SQLite file: merge (the backend's content wins, local changes win until
/// acknowledged), the outbox, the cursor and the remembered filter across reopening.
final class NotificationStoreTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var path: String { directory.file("store.sqlite") }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory.remove()
    }

    private func notification(_ n: Int, _ type: NotificationType = .ping, read: Bool = false, minute: Int64? = nil) -> AppNotification {
        AppNotification(id: "n-\(n)", type: type, createdAt: WallTime(secondsSinceEpoch: 1_795_000_000 + 60 * (minute ?? Int64(n))),
                        isRead: read, title: "title \(n)", body: n.isMultiple(of: 2) ? "body \(n)" : nil,
                        relatedContactID: "contact-\(n)", relatedPingID: type == .ping ? "ping-\(n)" : nil,
                        relatedAlertID: type == .alert ? "alert-\(n)" : nil)
    }

    private func change(_ n: Int, _ operation: NotificationChange.Operation, _ id: String? = nil) -> NotificationChange {
        NotificationChange(id: "change-\(n)", operation: operation, notificationID: id,
                           at: WallTime(secondsSinceEpoch: 1_795_001_000 + Int64(n)))
    }

    func testAMergedPageIsStoredNewestFirstWithEveryFieldAndItsCursor() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let page = [notification(1, .alert), notification(2, .added, read: true), notification(3, .ping)]
        try await database.mergeNotifications(NotificationPage(notifications: page, cursor: "3"))
        let snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications, page.reversed(), "newest first by creation time")
        XCTAssertEqual(snapshot.preferences, NotificationPreferences())
        XCTAssertEqual(snapshot.pendingChangeCount, 0)
        let cursor = try await database.notificationCursor()
        XCTAssertEqual(cursor, "3")
    }

    func testTheBackendsContentWinsAndClearedIDsAreDropped() async throws {
        let database = try await CheckInDatabase.open(path: path)
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1), notification(2)], cursor: "2"))
        var edited = notification(1, read: true)
        edited.title = "edited on the backend"
        try await database.mergeNotifications(NotificationPage(notifications: [edited], clearedIDs: ["n-2", "n-unknown"], cursor: "4"))
        let snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications, [edited])
        let cursor = try await database.notificationCursor()
        XCTAssertEqual(cursor, "4")
    }

    func testLocalChangesApplyAtOnceAreQueuedAndWinOverTheBackendUntilAcknowledged() async throws {
        let database = try await CheckInDatabase.open(path: path)
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1), notification(2), notification(3)],
                                                               cursor: "3"))
        let read = try await database.applyNotificationChange(change(1, .markRead, "n-1"))
        let cleared = try await database.applyNotificationChange(change(2, .clear, "n-2"))
        XCTAssertEqual(read, change(1, .markRead, "n-1"))
        var snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications.map(\.id), ["n-3", "n-1"])
        XCTAssertEqual(snapshot.notifications.first { $0.id == "n-1" }?.isRead, true)
        XCTAssertEqual(snapshot.pendingChangeCount, 2)

        // A page fetched before the backend saw those changes says unread and not cleared: the
        // device's changes still stand.
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1), notification(2)], cursor: "3"))
        snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications.map(\.id), ["n-3", "n-1"])
        XCTAssertEqual(snapshot.notifications.first { $0.id == "n-1" }?.isRead, true)

        // Acknowledged: from now on the backend's word counts, e.g. the app marked it unread again.
        let pending = try await database.pendingNotificationChanges(limit: 10)
        XCTAssertEqual(pending, [read, cleared], "oldest first")
        let marked = try await database.markNotificationChangesSynced(ids: [read.id, cleared.id, "change-unknown"],
                                                                      at: WallTime(secondsSinceEpoch: 1_795_002_000))
        XCTAssertEqual(marked, 2)
        let markedAgain = try await database.markNotificationChangesSynced(ids: [read.id], at: WallTime(secondsSinceEpoch: 1_795_002_001))
        XCTAssertEqual(markedAgain, 0)
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1)], clearedIDs: ["n-2"], cursor: "6"))
        snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications.first { $0.id == "n-1" }?.isRead, false)
        XCTAssertEqual(snapshot.pendingChangeCount, 0)
        let remaining = try await database.pendingNotificationChanges(limit: 10)
        XCTAssertEqual(remaining, [])
    }

    func testAllChangesCoverOnlyWhatHadArrivedAndCarryTheCursor() async throws {
        let database = try await CheckInDatabase.open(path: path)
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1), notification(2)], cursor: "2"))
        let readAll = try await database.applyNotificationChange(change(1, .markAllRead))
        XCTAssertEqual(readAll.throughCursor, "2")
        // Arrives after "mark all read": stays unread, and the pending change does not reach it.
        try await database.mergeNotifications(NotificationPage(notifications: [notification(3, .alert)], cursor: "3"))
        var snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications.map(\.isRead), [false, true, true])

        let clearAll = try await database.applyNotificationChange(change(2, .clearAll))
        XCTAssertEqual(clearAll.throughCursor, "3")
        try await database.mergeNotifications(NotificationPage(notifications: [notification(1), notification(4, .role)], cursor: "5"))
        snapshot = try await database.notificationSnapshot()
        XCTAssertEqual(snapshot.notifications.map(\.id), ["n-4"], "cleared ones stay hidden; the newer one shows")
        let pending = try await database.pendingNotificationChanges(limit: 1)
        XCTAssertEqual(pending, [readAll], "the limit is honoured, oldest first")
    }

    func testAChangeWithoutTheIDItNeedsIsRefusedAndNothingIsQueued() async throws {
        let database = try await CheckInDatabase.open(path: path)
        do {
            _ = try await database.applyNotificationChange(change(1, .markRead))
            XCTFail("a markRead without an id was accepted")
        } catch {
            XCTAssertTrue(error.message.contains("needs notification id"), error.message)
        }
        do {
            _ = try await database.applyNotificationChange(change(1, .clearAll, "n-1"))
            XCTFail("a clearAll with an id was accepted")
        } catch {
            XCTAssertTrue(error.message.contains("takes no notification id"), error.message)
        }
        _ = try await database.applyNotificationChange(change(2, .markAllRead))
        do {
            _ = try await database.applyNotificationChange(change(2, .markAllRead))
            XCTFail("the same change id was queued twice")
        } catch {
            XCTAssertTrue(error.message.contains("already queued"), error.message)
        }
        let count = try await database.pendingNotificationChangeCount()
        XCTAssertEqual(count, 1)
    }

    func testTheFilterTheOutboxAndTheCursorSurviveReopening() async throws {
        let preferences = NotificationPreferences(filter: .checkIn, unreadOnly: true)
        do {
            let database = try await CheckInDatabase.open(path: path)
            try await database.mergeNotifications(NotificationPage(notifications: [notification(1, .checkIn)], cursor: "17"))
            try await database.saveNotificationPreferences(preferences)
            _ = try await database.applyNotificationChange(change(1, .markRead, "n-1"))
        }
        let reopened = NotificationStoreClient.live(try await CheckInDatabase.open(path: path))
        let snapshot = try await reopened.load()
        XCTAssertEqual(snapshot.preferences, preferences)
        XCTAssertEqual(snapshot.notifications.map(\.isRead), [true])
        XCTAssertEqual(snapshot.pendingChangeCount, 1)
        let cursor = try await reopened.cursor()
        XCTAssertEqual(cursor, "17")
        try await reopened.savePreferences(NotificationPreferences())
        let cleared = try await reopened.load()
        XCTAssertEqual(cleared.preferences, NotificationPreferences())
    }

    func testAStoreFromBeforeNotificationsIsMigratedAndKeepsItsCheckIns() async throws {
        let instant = DeviceInstant(wall: WallTime(secondsSinceEpoch: 1_795_000_000), uptime: .seconds(5), bootID: "boot",
                                    wallClockSynchronized: true)
        let recorded: CheckInRecord
        do {
            let database = try await CheckInDatabase.open(path: path)
            recorded = try await database.record(NewCheckIn(id: .random(), at: instant, source: .button))
        }
        // Turn the file back into a version-1 store, as a device running the previous release has it.
        do {
            let connection = try Connection(path: path)
            for table in ["notifications", "notification_changes", "notification_settings", "pings", "ping_responses", "alerts",
                          "deliveries", "delivery_targets", "alert_deliveries", "alert_delivery_targets", "mqtt_events", "away_periods",
                          "power_events", "run_mark", "dependents", "dependents_view", "removed_watchers"] {
                try connection.execute("DROP TABLE \(table)")
            }
            try connection.execute("ALTER TABLE check_ins DROP COLUMN upload_rejection")
            try connection.execute("ALTER TABLE settings DROP COLUMN away_since_us")
            try connection.execute("ALTER TABLE settings DROP COLUMN away_until_us")
            try connection.pragma("user_version", set: "1")
        }
        let migrated = try await CheckInDatabase.open(path: path)
        let history = try await migrated.history(limit: 10)
        XCTAssertEqual(history, [recorded])
        let version = try await migrated.pragma("user_version")
        XCTAssertEqual(version, String(Schema.latestVersion))
        let snapshot = try await migrated.notificationSnapshot()
        XCTAssertEqual(snapshot, NotificationSnapshot(notifications: [], preferences: NotificationPreferences(), pendingChangeCount: 0))
    }

    func testAcknowledgedChangesArePrunedBeyondTheNewestKept() async throws {
        let database = try await CheckInDatabase.open(path: path)
        let total = CheckInDatabase.syncedChangesKept + 20
        var ids: [String] = []
        for n in 0..<total {
            ids.append(try await database.applyNotificationChange(change(n, .markAllRead)).id)
        }
        try await database.markNotificationChangesSynced(ids: ids, at: WallTime(secondsSinceEpoch: 1_795_003_000))
        let inspector = try Connection(path: path, mode: .readOnly)
        let select = try inspector.prepare("SELECT count(*) FROM notification_changes")
        XCTAssertTrue(try select.step())
        XCTAssertEqual(try select.int64(at: 0), Int64(CheckInDatabase.syncedChangesKept))
        withExtendedLifetime(database) {}
    }
}
