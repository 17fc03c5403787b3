public import CheckInModels
public import UplinkClient

extension NotificationsFeature {
    /// The app's NotificationFeature state, on the device: the notifications, the remembered
    /// filter, loading flags, how the sync with the backend goes, and the error to report.
    public struct State: Equatable, Sendable {
        /// Every notification the device keeps (cleared ones are gone), newest first.
        public var notifications: [AppNotification] = []
        /// The type filter and unread-only switch (the app's `selectedFilter`, `showUnreadOnly`).
        public var preferences = NotificationPreferences()
        public var hasLoaded = false
        public var isLoading = false
        /// Changes made on the device that the backend has not acknowledged yet.
        public var pendingChangeCount = 0
        public var isSyncing = false
        /// Asked to sync while a sync was running: one more follows it.
        public var syncRequestedAgain = false
        public var sync = SyncStatus()
        public var error: NotificationsError?
        public var isRunning = false

        public init() {}

        /// What the person sees: the notifications that pass the filter, newest first.
        public var visibleNotifications: [AppNotification] { notifications.filter(preferences.shows) }

        public var unreadCount: Int { notifications.count(where: { !$0.isRead }) }
    }

    /// How the exchange with the backend went (for `lifesignalctl notifications` and the logs).
    public struct SyncStatus: Equatable, Sendable {
        public var lastAttempt: WallTime?
        public var lastSuccess: WallTime?
        /// The last failure, while failures continue; nil after a success.
        public var lastFailure: UplinkFailure?
        public var consecutiveFailures = 0
        /// When the next sync is due (periodic refresh or retry).
        public var nextAttempt: WallTime?

        public init() {}
    }

    /// What one sync did.
    public struct SyncReport: Hashable, Sendable {
        /// Changes the backend acknowledged.
        public var pushed: Int
        /// Notifications created, changed or cleared on the backend that arrived.
        public var received: Int

        public init(pushed: Int, received: Int) {
            self.pushed = pushed
            self.received = received
        }
    }
}

/// A notifications problem to report to the operator. None of these is a check-in fault: the LEDs
/// do not change for them.
public struct NotificationsError: Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// The stored notifications could not be read.
        case storeUnavailable = "notifications_store_unavailable"
        /// A mark read / clear could not be stored: it was undone on the device and not queued.
        case changeNotSaved = "notification_change_not_saved"
        /// The filter applies now but was not saved (it will not survive a restart).
        case preferencesNotSaved = "notification_preferences_not_saved"
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
