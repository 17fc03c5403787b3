public import CheckInModels

/// The device's durable copy of the backend's notifications, the person's operations on them
/// waiting to be synced (the outbox), and the remembered filter.
///
/// As with check-ins, every call that returns has reached stable storage.
public struct NotificationStoreClient: Sendable {
    /// The notifications to show (cleared ones are gone), newest first, the remembered
    /// preferences and how many changes wait for the backend.
    public var load: @Sendable () async throws(StoreFailure) -> NotificationSnapshot
    /// Applies a change to the stored notifications and queues it for the backend, in one
    /// transaction; returns it as queued (with the cursor it covers).
    public var apply: @Sendable (NotificationChange) async throws(StoreFailure) -> NotificationChange
    public var savePreferences: @Sendable (NotificationPreferences) async throws(StoreFailure) -> Void
    /// Changes not yet acknowledged by the backend, oldest first.
    public var pendingChanges: @Sendable (_ limit: Int) async throws(StoreFailure) -> [NotificationChange]
    /// Marks changes as acknowledged; returns how many were newly marked.
    public var markChangesSynced: @Sendable (_ ids: [String], _ at: WallTime) async throws(StoreFailure) -> Int
    /// Where the next fetch from the backend continues (nil: from the beginning).
    public var cursor: @Sendable () async throws(StoreFailure) -> String?
    /// Takes a page from the backend in one transaction: its content wins, except that changes made
    /// on the device and not yet acknowledged still apply on top; stores the page's cursor.
    public var merge: @Sendable (NotificationPage) async throws(StoreFailure) -> Void

    public init(
        load: @escaping @Sendable () async throws(StoreFailure) -> NotificationSnapshot,
        apply: @escaping @Sendable (NotificationChange) async throws(StoreFailure) -> NotificationChange,
        savePreferences: @escaping @Sendable (NotificationPreferences) async throws(StoreFailure) -> Void,
        pendingChanges: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [NotificationChange],
        markChangesSynced: @escaping @Sendable (_ ids: [String], _ at: WallTime) async throws(StoreFailure) -> Int,
        cursor: @escaping @Sendable () async throws(StoreFailure) -> String?,
        merge: @escaping @Sendable (NotificationPage) async throws(StoreFailure) -> Void
    ) {
        self.load = load
        self.apply = apply
        self.savePreferences = savePreferences
        self.pendingChanges = pendingChanges
        self.markChangesSynced = markChangesSynced
        self.cursor = cursor
        self.merge = merge
    }
}

extension NotificationStoreClient {
    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = NotificationStoreClient(
        load: { () throws(StoreFailure) in throw .unexpected("NotificationStoreClient.load") },
        apply: { _ throws(StoreFailure) in throw .unexpected("NotificationStoreClient.apply") },
        savePreferences: { _ throws(StoreFailure) in throw .unexpected("NotificationStoreClient.savePreferences") },
        pendingChanges: { _ throws(StoreFailure) in throw .unexpected("NotificationStoreClient.pendingChanges") },
        markChangesSynced: { _, _ throws(StoreFailure) in throw .unexpected("NotificationStoreClient.markChangesSynced") },
        cursor: { () throws(StoreFailure) in throw .unexpected("NotificationStoreClient.cursor") },
        merge: { _ throws(StoreFailure) in throw .unexpected("NotificationStoreClient.merge") }
    )
}

/// What `NotificationStoreClient.load` returns.
public struct NotificationSnapshot: Hashable, Sendable {
    /// Newest first, cleared ones left out.
    public var notifications: [AppNotification]
    public var preferences: NotificationPreferences
    public var pendingChangeCount: Int

    public init(notifications: [AppNotification], preferences: NotificationPreferences, pendingChangeCount: Int) {
        self.notifications = notifications
        self.preferences = preferences
        self.pendingChangeCount = pendingChangeCount
    }
}
