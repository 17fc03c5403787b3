public import CheckInModels

/// `lifesignalctl notifications`: what the filter shows, the filter itself, and the sync.
public struct NotificationsReport: Codable, Hashable, Sendable {
    /// `all` or the type shown (alert, ping, role, added, removed, checkIn).
    public var filter: String
    public var unreadOnly: Bool
    /// The notifications the filter shows, newest first.
    public var notifications: [NotificationReport]
    /// All notifications kept on the device, and how many of them are unread.
    public var total: Int
    public var unread: Int
    /// Changes made on the device not yet acknowledged by the backend.
    public var pendingChanges: Int
    /// Nil on an offline device (no `[uplink]`).
    public var sync: NotificationSyncReport?
    public var error: String?

    public init(filter: String, unreadOnly: Bool, notifications: [NotificationReport], total: Int, unread: Int,
                pendingChanges: Int, sync: NotificationSyncReport?, error: String?) {
        self.filter = filter
        self.unreadOnly = unreadOnly
        self.notifications = notifications
        self.total = total
        self.unread = unread
        self.pendingChanges = pendingChanges
        self.sync = sync
        self.error = error
    }
}

public struct NotificationReport: Codable, Hashable, Sendable {
    public var id: String
    public var type: String
    /// ISO 8601 UTC.
    public var createdAt: String
    public var isRead: Bool
    public var title: String
    public var body: String?
    public var relatedContactId: String?
    public var relatedPingId: String?
    public var relatedAlertId: String?

    public init(_ notification: AppNotification) {
        id = notification.id
        type = notification.type.rawValue
        createdAt = notification.createdAt.iso8601
        isRead = notification.isRead
        title = notification.title
        body = notification.body
        relatedContactId = notification.relatedContactID
        relatedPingId = notification.relatedPingID
        relatedAlertId = notification.relatedAlertID
    }
}

/// How the notifications sync with the backend goes. Times are ISO 8601 UTC.
public struct NotificationSyncReport: Codable, Hashable, Sendable {
    public var syncing: Bool
    public var lastAttempt: String?
    public var lastSuccess: String?
    /// The last failure's explanation, while failures continue.
    public var lastFailure: String?
    public var consecutiveFailures: Int
    public var nextAttempt: String?

    public init(syncing: Bool, lastAttempt: String?, lastSuccess: String?, lastFailure: String?, consecutiveFailures: Int,
                nextAttempt: String?) {
        self.syncing = syncing
        self.lastAttempt = lastAttempt
        self.lastSuccess = lastSuccess
        self.lastFailure = lastFailure
        self.consecutiveFailures = consecutiveFailures
        self.nextAttempt = nextAttempt
    }
}

extension NotificationType {
    /// The type as an operator types it: `check-in` (also `checkin`, `checkIn`), `ping`, …; nil if unknown.
    public init?(operatorText text: String) {
        let folded = String(text.lowercased().filter { $0 != "-" && $0 != "_" })
        guard let type = NotificationType.allCases.first(where: { $0.rawValue.lowercased() == folded }) else { return nil }
        self = type
    }

    /// How the CLI writes it.
    public var operatorText: String { self == .checkIn ? "check-in" : rawValue }
}
