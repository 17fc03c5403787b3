public import CheckInModels
public import CheckInStoreClient
public import UplinkClient

extension NotificationsFeature {
    /// Everything that can happen to the notifications, named for what happened. The app's
    /// counterparts are noted where the names differ.
    public enum Action: Equatable, Sendable {
        // MARK: User actions
        /// Show only this type; nil shows every type (the app's `setFilter`). Remembered.
        case setFilter(NotificationType?)
        /// Show only unread notifications, or all. Remembered.
        case setUnreadOnly(Bool)
        case toggleUnreadOnly
        case markAsRead(String)
        case markAllAsRead
        case clearNotification(String)
        case clearAllNotifications
        /// Sync with the backend now: asked for by the operator, by a ping that arrived, or by the
        /// uplink coming back after an outage.
        case refreshRequested

        // MARK: System actions
        /// The daemon has started (the app's `onAppear`): load what is stored, then sync.
        case daemonStarted
        /// The daemon is shutting down (the app's `onDisappear`): timers and the sync stop.
        case daemonStopping
        case loadNotifications
        /// The periodic refresh, or a retry after a failed sync, is due.
        case syncTimerFired

        // MARK: Effect responses
        case notificationsResponse(Result<NotificationSnapshot, StoreFailure>)
        /// The durable write of a change finished (the app's `markAsReadResponse`,
        /// `clearNotificationResponse`, …); carries the change as asked for.
        case changeResponse(NotificationChange, Result<NotificationChange, StoreFailure>)
        case preferencesSaveResponse(Result<NotificationPreferences, StoreFailure>)
        case syncResponse(Result<SyncReport, UplinkFailure>)

        // MARK: Errors (the app's `setError`)
        case setError(NotificationsError?)
        case dismissError

        // MARK: Delegate actions, for whoever hosts the feature (control socket, logs)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// Applied and queued for the backend.
            case changeSaved(NotificationChange)
            /// Not stored: undone on the device.
            case changeNotSaved(NotificationChange, StoreFailure)
            /// No notification with this id is on the device.
            case unknownNotification(String)
            case preferencesSaved(NotificationPreferences)
            case preferencesNotSaved(StoreFailure)
            case synced(SyncReport)
            case syncFailed(UplinkFailure)
        }
    }
}
