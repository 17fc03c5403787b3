import CheckInModels
import SQLiteDatabase

/// How notifications and queued changes are laid out in their rows. As with check-ins, a value
/// that does not parse means a damaged or foreign file and is reported as CORRUPT.
enum NotificationRow {
    /// The SELECT list `notification(from:)` expects, in this order.
    static let columns = "id, type, created_at_us, is_read, title, body, related_contact_id, related_ping_id, related_alert_id"

    static func notification(from row: Statement) throws(SQLiteError) -> AppNotification {
        AppNotification(
            id: try row.text(at: 0), type: try type(try row.text(at: 1), in: row),
            createdAt: WallTime(microsecondsSinceEpoch: try row.int64(at: 2)), isRead: try row.bool(at: 3),
            title: try row.text(at: 4), body: try row.optionalText(at: 5), relatedContactID: try row.optionalText(at: 6),
            relatedPingID: try row.optionalText(at: 7), relatedAlertID: try row.optionalText(at: 8))
    }

    /// From `SELECT id, operation, notification_id, at_us, through_cursor`.
    static func change(from row: Statement) throws(SQLiteError) -> NotificationChange {
        let operationText = try row.text(at: 1)
        guard let operation = NotificationChange.Operation(rawValue: operationText) else {
            throw damaged(row, "notification change has unknown operation '\(operationText)'")
        }
        return NotificationChange(id: try row.text(at: 0), operation: operation, notificationID: try row.optionalText(at: 2),
                                  at: WallTime(microsecondsSinceEpoch: try row.int64(at: 3)),
                                  throughCursor: try row.optionalText(at: 4))
    }

    static func type(_ text: String, in row: Statement) throws(SQLiteError) -> NotificationType {
        guard let type = NotificationType(rawValue: text) else { throw damaged(row, "unknown notification type '\(text)'") }
        return type
    }

    private static func damaged(_ row: Statement, _ message: String) -> SQLiteError {
        SQLiteError(operation: "read a notification", path: row.connection.path, code: .corrupt, message: message)
    }
}
