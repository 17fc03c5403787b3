public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Notifications: the backend's content, the person's changes (applied at once and queued in
/// `notification_changes` until the backend acknowledges them), the filter and the sync cursor.
extension CheckInDatabase {
    /// Acknowledged changes kept for diagnosis; older ones are deleted when more are acknowledged.
    public static let syncedChangesKept = 500

    /// The notifications to show (newest first), the remembered preferences, the outbox's size.
    public func notificationSnapshot() throws(StoreFailure) -> NotificationSnapshot {
        let pending = try pendingNotificationChangeCount()
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT \(NotificationRow.columns) FROM notifications WHERE cleared = 0
                ORDER BY created_at_us DESC, local_order DESC
                """)
            var notifications: [AppNotification] = []
            while try select.step() {
                notifications.append(try NotificationRow.notification(from: select))
            }
            let settings = try connection.prepare(
                "SELECT filter_type, unread_only FROM notification_settings WHERE singleton = 1")
            var preferences = NotificationPreferences()
            if try settings.step() {
                if let type = try settings.optionalText(at: 0) {
                    preferences.filter = try NotificationRow.type(type, in: settings)
                }
                preferences.unreadOnly = try settings.bool(at: 1)
            }
            return NotificationSnapshot(notifications: notifications, preferences: preferences,
                                        pendingChangeCount: pending)
        } catch {
            throw StoreFailure(error, while: "read the notifications")
        }
    }

    /// Applies `change` to the stored notifications and queues it, in one transaction. "All"
    /// changes cover the notifications that have arrived so far (and, for the backend, its cursor).
    public func applyNotificationChange(_ change: NotificationChange) throws(StoreFailure) -> NotificationChange {
        guard change.operation.needsNotificationID == (change.notificationID != nil) else {
            throw StoreFailure(.other, "notification change \(change.id): \(change.operation.rawValue) "
                + (change.operation.needsNotificationID ? "needs" : "takes no") + " notification id")
        }
        return try write("store the notification change \(change.operation.rawValue)", refusing: { error in
            guard error.code == .constraintPrimaryKey else { return nil }
            return StoreFailure(.other, "notification change \(change.id) is already queued; a new change needs a new id")
        }) { () throws(SQLiteError) -> NotificationChange in
            var queued = change
            var throughOrder: Int64?
            if !change.operation.needsNotificationID {
                queued.throughCursor = try currentCursor()
                throughOrder = try singleInteger("SELECT coalesce(max(local_order), 0) FROM notifications")
            }
            let insert = try connection.prepare("""
                INSERT INTO notification_changes (id, queue_order, operation, notification_id, at_us,
                                                  through_cursor, through_local_order)
                VALUES (?1, (SELECT coalesce(max(queue_order), 0) + 1 FROM notification_changes), ?2, ?3, ?4, ?5, ?6)
                """)
            try insert.bind(.text(queued.id), .text(queued.operation.rawValue), .text(orNull: queued.notificationID),
                            .integer(queued.at.microsecondsSinceEpoch), .text(orNull: queued.throughCursor),
                            .integer(orNull: throughOrder))
            try insert.step()
            try reapplyPendingChanges()
            return queued
        }
    }

    public func saveNotificationPreferences(_ preferences: NotificationPreferences) throws(StoreFailure) {
        try write("save the notification filter") { () throws(SQLiteError) in
            let update = try connection.prepare(
                "UPDATE notification_settings SET filter_type = ?1, unread_only = ?2 WHERE singleton = 1")
            try update.bind(.text(orNull: preferences.filter?.rawValue), .bool(preferences.unreadOnly))
            try update.step()
        }
    }

    /// Changes not yet acknowledged by the backend, oldest first.
    public func pendingNotificationChanges(limit: Int) throws(StoreFailure) -> [NotificationChange] {
        guard limit > 0 else { return [] }
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT id, operation, notification_id, at_us, through_cursor FROM notification_changes
                WHERE synced_at_us IS NULL ORDER BY queue_order ASC LIMIT ?1
                """)
            try select.bind(.integer(Int64(clamping: limit)))
            var changes: [NotificationChange] = []
            while try select.step() {
                changes.append(try NotificationRow.change(from: select))
            }
            return changes
        } catch {
            throw StoreFailure(error, while: "read the queued notification changes")
        }
    }

    /// Marks changes as acknowledged at `time`, in one transaction; unknown ids and ids already
    /// marked are left alone. Returns how many were newly marked.
    @discardableResult
    public func markNotificationChangesSynced(ids: [String], at time: WallTime) throws(StoreFailure) -> Int {
        try write("mark \(ids.count) notification changes as synced") { () throws(SQLiteError) -> Int in
            let update = try connection.prepare(
                "UPDATE notification_changes SET synced_at_us = ?1 WHERE id = ?2 AND synced_at_us IS NULL")
            var marked = 0
            for id in ids {
                try update.bind(.integer(time.microsecondsSinceEpoch), .text(id))
                try update.step()
                marked += connection.changes
            }
            let prune = try connection.prepare("""
                DELETE FROM notification_changes WHERE synced_at_us IS NOT NULL AND queue_order <= (
                    SELECT queue_order FROM notification_changes WHERE synced_at_us IS NOT NULL
                    ORDER BY queue_order DESC LIMIT 1 OFFSET ?1)
                """)
            try prune.bind(.integer(Int64(Self.syncedChangesKept)))
            try prune.step()
            return marked
        }
    }

    public func pendingNotificationChangeCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM notification_changes WHERE synced_at_us IS NULL",
                      while: "count the queued notification changes")
    }

    /// Where the next fetch from the backend continues.
    public func notificationCursor() throws(StoreFailure) -> String? {
        do throws(SQLiteError) {
            return try currentCursor()
        } catch {
            throw StoreFailure(error, while: "read the notifications cursor")
        }
    }

    /// Takes a page from the backend in one transaction: its content replaces what is stored, ids it
    /// cleared are deleted, then changes not yet acknowledged apply again on top; the page's cursor
    /// is stored with it, so a crash never skips or half-applies a page.
    public func mergeNotifications(_ page: NotificationPage) throws(StoreFailure) {
        try write("store \(page.notifications.count) notifications from the backend") { () throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM notifications WHERE id = ?1")
            for id in page.clearedIDs {
                try delete.bind(.text(id))
                try delete.step()
            }
            let upsert = try connection.prepare("""
                INSERT INTO notifications (id, local_order, type, created_at_us, is_read, cleared, title, body,
                                           related_contact_id, related_ping_id, related_alert_id)
                VALUES (?1, (SELECT coalesce(max(local_order), 0) + 1 FROM notifications), ?2, ?3, ?4, 0, ?5, ?6,
                        ?7, ?8, ?9)
                ON CONFLICT (id) DO UPDATE SET
                    type = excluded.type, created_at_us = excluded.created_at_us, is_read = excluded.is_read,
                    cleared = 0, title = excluded.title, body = excluded.body,
                    related_contact_id = excluded.related_contact_id, related_ping_id = excluded.related_ping_id,
                    related_alert_id = excluded.related_alert_id
                """)
            for notification in page.notifications {
                try upsert.bind(
                    .text(notification.id), .text(notification.type.rawValue),
                    .integer(notification.createdAt.microsecondsSinceEpoch), .bool(notification.isRead),
                    .text(notification.title), .text(orNull: notification.body),
                    .text(orNull: notification.relatedContactID), .text(orNull: notification.relatedPingID),
                    .text(orNull: notification.relatedAlertID))
                try upsert.step()
            }
            try reapplyPendingChanges()
            if let cursor = page.cursor {
                let update = try connection.prepare("UPDATE notification_settings SET cursor = ?1 WHERE singleton = 1")
                try update.bind(.text(cursor))
                try update.step()
            }
        }
    }

    // MARK: Helpers

    /// Local changes win until the backend has acknowledged them: every pending change is applied
    /// (again) to what is stored. Idempotent.
    private func reapplyPendingChanges() throws(SQLiteError) {
        for (column, one, all) in [("is_read", "markRead", "markAllRead"), ("cleared", "clear", "clearAll")] {
            try connection.execute("""
                UPDATE notifications SET \(column) = 1 WHERE \(column) = 0 AND EXISTS (
                    SELECT 1 FROM notification_changes AS c WHERE c.synced_at_us IS NULL AND (
                        (c.operation = '\(one)' AND c.notification_id = notifications.id)
                        OR (c.operation = '\(all)' AND c.through_local_order >= notifications.local_order)))
                """)
        }
    }

    private func currentCursor() throws(SQLiteError) -> String? {
        let select = try connection.prepare("SELECT cursor FROM notification_settings WHERE singleton = 1")
        guard try select.step() else { return nil }
        return try select.optionalText(at: 0)
    }

    private func singleInteger(_ sql: String) throws(SQLiteError) -> Int64 {
        let select = try connection.prepare(sql)
        try select.step()
        return try select.int64(at: 0)
    }
}
