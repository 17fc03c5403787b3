public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import UplinkClient
import Backoff

/// The device's copy of the backend's notifications for this user (the app's NotificationFeature):
/// filter by type, unread only (both remembered), mark read / mark all read, clear / clear all.
///
/// Every operation is applied to the state at once, then stored durably together with a queued
/// change for the backend (the outbox); the sync pushes the outbox, then fetches what changed on
/// the backend since the stored cursor. The backend's content wins, except that changes made on
/// the device still apply on top until the backend has acknowledged them.
public struct NotificationsFeature: Reducer {
    public var store: NotificationStoreClient
    /// Nil on an offline device: notifications stay as stored.
    public var uplink: UplinkClient?
    public var clock: DeviceClock
    public var newChangeID: @Sendable () -> String
    /// How often the device asks the backend for new notifications while all is well. Pings have
    /// their own push channel; this is the backstop, so it can be minutes.
    public var refreshInterval: Duration
    /// The wait before retrying after the n-th consecutive transient failure.
    public var retryDelay: @Sendable (_ failures: Int, _ retryAfter: Duration?) -> Duration
    /// Changes per push request.
    public var batchSize: Int
    /// Pages fetched in one sync at most (the next sync continues from the stored cursor).
    public var maximumPages: Int

    public init(
        store: NotificationStoreClient,
        uplink: UplinkClient?,
        clock: DeviceClock,
        newChangeID: @escaping @Sendable () -> String = { CheckInID.random().description },
        refreshInterval: Duration = .seconds(300),
        retryDelay: (@Sendable (_ failures: Int, _ retryAfter: Duration?) -> Duration)? = nil,
        batchSize: Int = 100,
        maximumPages: Int = 20
    ) {
        self.store = store
        self.uplink = uplink
        self.clock = clock
        self.newChangeID = newChangeID
        self.refreshInterval = refreshInterval
        let backoff = Backoff.network(cap: refreshInterval)
        self.retryDelay = retryDelay ?? { failures, retryAfter in
            backoff.delay(afterFailures: failures, retryAfter: retryAfter, random: { Int64.random(in: $0) })
        }
        self.batchSize = max(batchSize, 1)
        self.maximumPages = max(maximumPages, 1)
    }

    enum CancelID {
        static let sync = EffectID("notifications-sync")
        static let syncTimer = EffectID("notifications-sync-timer")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .daemonStarted:
            state.isRunning = true
            // The first sync follows the first load, so the backend's page merges into a known state.
            return .send(.loadNotifications)

        case .daemonStopping:
            state.isRunning = false
            state.isSyncing = false
            state.syncRequestedAgain = false
            state.sync.nextAttempt = nil
            // A change being stored is left to finish: it is the person's operation.
            return .merge(.cancel(id: CancelID.sync), .cancel(id: CancelID.syncTimer))

        case .loadNotifications:
            state.isLoading = true
            return .run { [store] send in
                await send(.notificationsResponse(await Result { () async throws(StoreFailure) in try await store.load() }))
            }

        case let .notificationsResponse(.success(snapshot)):
            state.isLoading = false
            state.notifications = snapshot.notifications
            state.pendingChangeCount = snapshot.pendingChangeCount
            if state.error?.kind == .storeUnavailable { state.error = nil }
            guard state.hasLoaded else {
                // Afterwards the state is the truth: a filter set meanwhile is already being saved.
                state.preferences = snapshot.preferences
                state.hasLoaded = true
                return requestSync(&state)
            }
            return .none

        case let .notificationsResponse(.failure(failure)):
            state.isLoading = false
            state.error = NotificationsError(.storeUnavailable, "notifications could not be read: \(failure.message)")
            return .none

        case let .setFilter(filter):
            state.preferences.filter = filter
            return savePreferences(state.preferences)

        case let .setUnreadOnly(unreadOnly):
            state.preferences.unreadOnly = unreadOnly
            return savePreferences(state.preferences)

        case .toggleUnreadOnly:
            state.preferences.unreadOnly.toggle()
            return savePreferences(state.preferences)

        case let .preferencesSaveResponse(.success(preferences)):
            if state.error?.kind == .preferencesNotSaved { state.error = nil }
            return .send(.delegate(.preferencesSaved(preferences)))

        case let .preferencesSaveResponse(.failure(failure)):
            state.error = NotificationsError(.preferencesNotSaved,
                                             "the notification filter applies now but was NOT saved: \(failure.message)")
            return .send(.delegate(.preferencesNotSaved(failure)))

        case let .markAsRead(id):
            guard let index = state.notifications.firstIndex(where: { $0.id == id }) else {
                return .send(.delegate(.unknownNotification(id)))
            }
            state.notifications[index].isRead = true
            return record(.markRead, id, into: &state)

        case .markAllAsRead:
            for index in state.notifications.indices { state.notifications[index].isRead = true }
            return record(.markAllRead, nil, into: &state)

        case let .clearNotification(id):
            guard state.notifications.contains(where: { $0.id == id }) else {
                return .send(.delegate(.unknownNotification(id)))
            }
            state.notifications.removeAll { $0.id == id }
            return record(.clear, id, into: &state)

        case .clearAllNotifications:
            state.notifications = []
            return record(.clearAll, nil, into: &state)

        case let .changeResponse(_, .success(stored)):
            if state.error?.kind == .changeNotSaved { state.error = nil }
            return .merge(.send(.delegate(.changeSaved(stored))), requestSync(&state))

        case let .changeResponse(change, .failure(failure)):
            state.pendingChangeCount = max(state.pendingChangeCount - 1, 0)
            state.error = NotificationsError(.changeNotSaved, "\(change.operation.rawValue) was NOT saved and has been "
                                             + "undone: \(failure.message)")
            // Show what is stored again, not the change that failed.
            return .merge(.send(.loadNotifications), .send(.delegate(.changeNotSaved(change, failure))))

        case .refreshRequested, .syncTimerFired:
            return requestSync(&state)

        case let .syncResponse(result):
            return reduceSyncResponse(result, into: &state)

        case let .setError(error):
            state.error = error
            return .none

        case .dismissError:
            state.error = nil
            return .none

        case .delegate:
            return .none
        }
    }

    /// A change made on the device: the state already shows it; store it and queue it.
    private func record(_ operation: NotificationChange.Operation, _ id: String?, into state: inout State) -> Effect<Action> {
        let change = NotificationChange(id: newChangeID(), operation: operation, notificationID: id, at: clock.now().wall)
        state.pendingChangeCount += 1
        return .run { [store] send in
            await send(.changeResponse(change, await Result { () async throws(StoreFailure) in try await store.apply(change) }))
        }
    }

    private func savePreferences(_ preferences: NotificationPreferences) -> Effect<Action> {
        .run { [store] send in
            await send(.preferencesSaveResponse(await Result { () async throws(StoreFailure) in
                try await store.savePreferences(preferences)
                return preferences
            }))
        }
    }
}
