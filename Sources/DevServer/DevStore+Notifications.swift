import CheckInModels
import DeviceAPI
import SQLiteDatabase
import Synchronization

/// The dev server's notifications: one row per (device, id) with the revision of its last change.
/// Revisions count up per device; the cursor a device gets is the highest revision it has seen, so
/// `after` returns exactly what was created or changed since (cleared ones as tombstones).
extension DevStore {
    static let notificationTables = """
        CREATE TABLE IF NOT EXISTS notifications (
            device_id TEXT NOT NULL,
            id TEXT NOT NULL,
            -- The revision at creation: "all" changes cover notifications created at or before their cursor.
            created_revision INTEGER NOT NULL,
            revision INTEGER NOT NULL,
            type TEXT NOT NULL,
            created_at TEXT NOT NULL,
            is_read INTEGER NOT NULL DEFAULT 0,
            cleared INTEGER NOT NULL DEFAULT 0,
            title TEXT NOT NULL,
            body TEXT,
            related_contact_id TEXT,
            related_ping_id TEXT,
            related_alert_id TEXT,
            PRIMARY KEY (device_id, id)
        );
        CREATE INDEX IF NOT EXISTS notifications_by_revision ON notifications (device_id, revision);
        """

    private static let notificationColumns = """
        id, type, created_at, is_read, cleared, title, body, related_contact_id, related_ping_id, related_alert_id, revision
        """

    func createNotification(_ new: NewNotification, id: String, createdAt: String, device: String) throws(SQLiteError)
        -> WireNotification {
        try connection.withLock { connection throws(SQLiteError) -> WireNotification in
            try connection.transaction { () throws(SQLiteError) -> WireNotification in
                let revision = try Self.nextRevision(connection, device: device)
                let insert = try connection.prepare("""
                    INSERT INTO notifications (device_id, id, created_revision, revision, type, created_at, title, body,
                                               related_contact_id, related_ping_id, related_alert_id)
                    VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)
                    """)
                try insert.bind(.text(device), .text(id), .integer(revision), .text(new.type), .text(createdAt),
                                .text(new.title), .text(orNull: new.body), .text(orNull: new.relatedContactId),
                                .text(orNull: new.relatedPingId), .text(orNull: new.relatedAlertId))
                _ = try insert.step()
                return WireNotification(id: id, type: new.type, createdAt: createdAt, isRead: false, title: new.title,
                                        body: new.body, relatedContactId: new.relatedContactId,
                                        relatedPingId: new.relatedPingId, relatedAlertId: new.relatedAlertId)
            }
        }
    }

    /// Notifications changed after revision `after`, in revision order, at most `limit`.
    func notifications(device: String, after: Int64, limit: Int) throws(SQLiteError) -> NotificationList {
        try connection.withLock { connection throws(SQLiteError) -> NotificationList in
            let select = try connection.prepare("""
                SELECT \(Self.notificationColumns) FROM notifications
                WHERE device_id = ?1 AND revision > ?2 ORDER BY revision LIMIT ?3
                """)
            try select.bind(.text(device), .integer(after), .integer(Int64(limit) + 1))
            var items: [WireNotification] = []
            var cursor: Int64?
            while try select.step() {
                guard items.count < limit else { return NotificationList(notifications: items, cursor: cursor.map(String.init), hasMore: true) }
                items.append(try Self.notification(select))
                cursor = try select.int64(at: 10)
            }
            let latest = try Self.nextRevision(connection, device: device) - 1
            return NotificationList(notifications: items, cursor: latest > 0 ? String(cursor ?? latest) : nil, hasMore: false)
        }
    }

    /// Every notification of a device, cleared ones included (admin view).
    func allNotifications(device: String) throws(SQLiteError) -> [WireNotification] {
        try connection.withLock { connection throws(SQLiteError) -> [WireNotification] in
            let select = try connection.prepare(
                "SELECT \(Self.notificationColumns) FROM notifications WHERE device_id = ?1 ORDER BY created_revision")
            try select.bind(.text(device))
            var items: [WireNotification] = []
            while try select.step() { items.append(try Self.notification(select)) }
            return items
        }
    }

    /// Applies the changes in one transaction. Each is idempotent: reading what is read or clearing
    /// what is cleared changes nothing (and does not move the revision).
    func applyNotificationChanges(_ changes: [WireNotificationChange], device: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in
                for change in changes {
                    let column = change.operation == "markRead" || change.operation == "markAllRead" ? "is_read" : "cleared"
                    // One notification, or every one created at or before the device's cursor.
                    let (scope, value): (String, SQLiteValue) = change.notificationId.map { ("id = ?2", .text($0)) }
                        ?? ("created_revision <= ?2", .integer(change.throughCursor.flatMap { Int64($0) } ?? 0))
                    let select = try connection.prepare(
                        "SELECT id FROM notifications WHERE device_id = ?1 AND \(column) = 0 AND \(scope) ORDER BY created_revision")
                    try select.bind(.text(device), value)
                    var ids: [String] = []
                    while try select.step() { ids.append(try select.text(at: 0)) }
                    // One revision per row, so a page boundary never splits a revision.
                    let update = try connection.prepare(
                        "UPDATE notifications SET \(column) = 1, revision = ?3 WHERE device_id = ?1 AND id = ?2")
                    for id in ids {
                        try update.bind(.text(device), .text(id), .integer(try Self.nextRevision(connection, device: device)))
                        _ = try update.step()
                    }
                }
            }
        }
    }

    private static func nextRevision(_ connection: Connection, device: String) throws(SQLiteError) -> Int64 {
        let select = try connection.prepare("SELECT coalesce(max(revision), 0) + 1 FROM notifications WHERE device_id = ?1")
        try select.bind(.text(device))
        _ = try select.step()
        return try select.int64(at: 0)
    }

    private static func notification(_ row: Statement) throws(SQLiteError) -> WireNotification {
        WireNotification(id: try row.text(at: 0), type: try row.text(at: 1), createdAt: try row.text(at: 2),
                         isRead: try row.bool(at: 3), cleared: try row.bool(at: 4) ? true : nil, title: try row.text(at: 5),
                         body: try row.optionalText(at: 6), relatedContactId: try row.optionalText(at: 7),
                         relatedPingId: try row.optionalText(at: 8), relatedAlertId: try row.optionalText(at: 9))
    }
}
