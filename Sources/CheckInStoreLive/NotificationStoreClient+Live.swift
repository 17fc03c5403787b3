public import CheckInStoreClient

extension NotificationStoreClient {
    /// The notifications of an opened database.
    public static func live(_ database: CheckInDatabase) -> NotificationStoreClient {
        live(opening: { database })
    }

    /// The notifications of a database reached through `database()`, which may open it first (the
    /// daemon's store supervisor keeps retrying a store that could not be opened).
    public static func live(
        opening database: @escaping @Sendable () async throws(StoreFailure) -> CheckInDatabase
    ) -> NotificationStoreClient {
        NotificationStoreClient(
            load: { () async throws(StoreFailure) in try await database().notificationSnapshot() },
            apply: { change async throws(StoreFailure) in try await database().applyNotificationChange(change) },
            savePreferences: { preferences async throws(StoreFailure) in
                try await database().saveNotificationPreferences(preferences)
            },
            pendingChanges: { limit async throws(StoreFailure) in try await database().pendingNotificationChanges(limit: limit) },
            markChangesSynced: { ids, time async throws(StoreFailure) in
                try await database().markNotificationChangesSynced(ids: ids, at: time)
            },
            cursor: { () async throws(StoreFailure) in try await database().notificationCursor() },
            merge: { page async throws(StoreFailure) in try await database().mergeNotifications(page) }
        )
    }
}
