public import CheckInModels

/// `GET /v1/notifications?after=CURSOR`: notifications created or changed after the cursor, in the
/// order of the backend's changes (docs/device-api.yaml, `NotificationList`).
public struct NotificationList: Codable, Hashable, Sendable {
    public var notifications: [WireNotification]
    /// Give it as `after` next time. Absent when the backend has no notifications at all yet.
    public var cursor: String?
    /// More changes wait: fetch again with `cursor`.
    public var hasMore: Bool

    public init(notifications: [WireNotification], cursor: String?, hasMore: Bool) {
        self.notifications = notifications
        self.cursor = cursor
        self.hasMore = hasMore
    }
}

/// One notification on the wire (`Notification`). A `cleared` one is a tombstone: the device drops it.
public struct WireNotification: Codable, Hashable, Sendable {
    public var id: String
    /// alert, ping, role, added, removed, checkIn.
    public var type: String
    /// RFC 3339 UTC.
    public var createdAt: String
    public var isRead: Bool
    public var cleared: Bool?
    public var title: String
    public var body: String?
    public var relatedContactId: String?
    public var relatedPingId: String?
    public var relatedAlertId: String?

    public init(id: String, type: String, createdAt: String, isRead: Bool, cleared: Bool? = nil, title: String,
                body: String? = nil, relatedContactId: String? = nil, relatedPingId: String? = nil,
                relatedAlertId: String? = nil) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.isRead = isRead
        self.cleared = cleared
        self.title = title
        self.body = body
        self.relatedContactId = relatedContactId
        self.relatedPingId = relatedPingId
        self.relatedAlertId = relatedAlertId
    }

    public init(_ notification: AppNotification, cleared: Bool = false) {
        self.init(id: notification.id, type: notification.type.rawValue, createdAt: notification.createdAt.rfc3339Microseconds,
                  isRead: notification.isRead, cleared: cleared ? true : nil, title: notification.title,
                  body: notification.body, relatedContactId: notification.relatedContactID,
                  relatedPingId: notification.relatedPingID, relatedAlertId: notification.relatedAlertID)
    }

    /// The device's model, or why this item is not one (an unknown type, an unreadable time).
    public func notification() -> Result<AppNotification, APIDecodingError> {
        guard let kind = NotificationType(rawValue: type) else {
            return .failure(APIDecodingError("notification \(id) has unknown type '\(type)'"))
        }
        guard let created = WallTime(iso8601: createdAt) else {
            return .failure(APIDecodingError("notification \(id) has createdAt '\(createdAt)', not RFC 3339 UTC"))
        }
        return .success(AppNotification(id: id, type: kind, createdAt: created, isRead: isRead, title: title, body: body,
                                        relatedContactID: relatedContactId, relatedPingID: relatedPingId,
                                        relatedAlertID: relatedAlertId))
    }
}

/// `POST /v1/notifications/changes`: operations made on the device, oldest first.
public struct NotificationChangeBatch: Codable, Hashable, Sendable {
    public var changes: [WireNotificationChange]

    public init(changes: [WireNotificationChange]) {
        self.changes = changes
    }
}

/// One change on the wire (`NotificationChange`). The reply acknowledges change ids
/// (`CheckInAcknowledgement`); every operation is idempotent, so a resend changes nothing.
public struct WireNotificationChange: Codable, Hashable, Sendable {
    /// The idempotency key (a UUID made on the device).
    public var id: String
    /// markRead, markAllRead, clear, clearAll.
    public var operation: String
    /// markRead and clear: the notification.
    public var notificationId: String?
    /// markAllRead and clearAll: apply to notifications the device had seen, i.e. those created at
    /// or before this cursor; absent = the device had seen none.
    public var throughCursor: String?
    /// When the person made the change (device clock, RFC 3339 UTC).
    public var at: String

    public init(id: String, operation: String, notificationId: String?, throughCursor: String?, at: String) {
        self.id = id
        self.operation = operation
        self.notificationId = notificationId
        self.throughCursor = throughCursor
        self.at = at
    }

    public init(_ change: NotificationChange) {
        self.init(id: change.id, operation: change.operation.rawValue, notificationId: change.notificationID,
                  throughCursor: change.throughCursor, at: change.at.rfc3339Microseconds)
    }
}

/// `POST /admin/notifications?device=ID` on the reference server: a notification as the backend
/// would create it for a user (for tests and demos).
public struct NewNotification: Codable, Hashable, Sendable {
    public var type: String
    public var title: String
    public var body: String?
    public var relatedContactId: String?
    public var relatedPingId: String?
    public var relatedAlertId: String?

    public init(type: String, title: String, body: String? = nil, relatedContactId: String? = nil,
                relatedPingId: String? = nil, relatedAlertId: String? = nil) {
        self.type = type
        self.title = title
        self.body = body
        self.relatedContactId = relatedContactId
        self.relatedPingId = relatedPingId
        self.relatedAlertId = relatedAlertId
    }
}

extension DeviceAPIPath {
    public static let notifications = "/v1/notifications"
    public static let notificationChanges = "/v1/notifications/changes"
}
