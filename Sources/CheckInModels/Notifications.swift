/// The kinds of notification the backend keeps for a user (the app's `NotificationType`).
public enum NotificationType: String, CaseIterable, Hashable, Sendable, Comparable {
    /// A responder or dependent asked for help.
    case alert
    /// A responder pinged the user (or the user's ping was answered).
    case ping
    /// A contact's role changed (responder / dependent).
    case role
    /// Someone added the user as a contact.
    case added
    /// Someone removed the user as a contact.
    case removed
    /// Check-in events: a reminder, an overdue check-in.
    case checkIn

    public static func < (lhs: NotificationType, rhs: NotificationType) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}

/// One notification as the device keeps it (the app's `NotificationData`). The content is the
/// backend's; `isRead` may already reflect an operation made on the device and not yet synced.
public struct AppNotification: Hashable, Sendable, Identifiable {
    /// The backend's id (opaque text).
    public var id: String
    public var type: NotificationType
    public var createdAt: WallTime
    public var isRead: Bool
    public var title: String
    public var body: String?
    public var relatedContactID: String?
    public var relatedPingID: String?
    public var relatedAlertID: String?

    public init(id: String, type: NotificationType, createdAt: WallTime, isRead: Bool = false, title: String,
                body: String? = nil, relatedContactID: String? = nil, relatedPingID: String? = nil,
                relatedAlertID: String? = nil) {
        self.id = id
        self.type = type
        self.createdAt = createdAt
        self.isRead = isRead
        self.title = title
        self.body = body
        self.relatedContactID = relatedContactID
        self.relatedPingID = relatedPingID
        self.relatedAlertID = relatedAlertID
    }
}

/// Which notifications the person looks at (the app's `selectedFilter` and `showUnreadOnly`), kept
/// by the device so they survive restarts.
public struct NotificationPreferences: Hashable, Sendable {
    /// Only this type; nil = every type.
    public var filter: NotificationType?
    public var unreadOnly: Bool

    public init(filter: NotificationType? = nil, unreadOnly: Bool = false) {
        self.filter = filter
        self.unreadOnly = unreadOnly
    }

    /// Whether `notification` passes the filter.
    public func shows(_ notification: AppNotification) -> Bool {
        (filter == nil || notification.type == filter) && (!unreadOnly || !notification.isRead)
    }
}

/// An operation the person made on the device: applied locally at once, then queued for the backend.
public struct NotificationChange: Hashable, Sendable, Identifiable {
    public enum Operation: String, CaseIterable, Hashable, Sendable {
        case markRead
        case markAllRead
        case clear
        case clearAll

        /// markRead and clear name one notification; the others cover all the device had.
        public var needsNotificationID: Bool { self == .markRead || self == .clear }
    }

    /// The change's idempotency key (a UUID), made on the device.
    public var id: String
    public var operation: Operation
    /// For `markRead` and `clear`.
    public var notificationID: String?
    /// When the person made the change (device wall clock).
    public var at: WallTime
    /// For `markAllRead` and `clearAll`: the sync cursor the device had when the change was made, so
    /// the backend applies it only to notifications the device knew of (set by the store).
    public var throughCursor: String?

    public init(id: String, operation: Operation, notificationID: String? = nil, at: WallTime, throughCursor: String? = nil) {
        self.id = id
        self.operation = operation
        self.notificationID = notificationID
        self.at = at
        self.throughCursor = throughCursor
    }
}

/// What the backend reported since the device's cursor: new or changed notifications (its content
/// wins) and ids it has cleared.
public struct NotificationPage: Hashable, Sendable {
    public var notifications: [AppNotification]
    public var clearedIDs: [String]
    /// Where the next fetch continues.
    public var cursor: String?
    /// More changes wait beyond this page.
    public var hasMore: Bool

    public init(notifications: [AppNotification] = [], clearedIDs: [String] = [], cursor: String?, hasMore: Bool = false) {
        self.notifications = notifications
        self.clearedIDs = clearedIDs
        self.cursor = cursor
        self.hasMore = hasMore
    }
}
