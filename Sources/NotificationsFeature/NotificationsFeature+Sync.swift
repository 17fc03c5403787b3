import CheckInModels
import CheckInStoreClient
import ComposableCore
import UplinkClient

extension NotificationsFeature {
    /// Starts a sync now, or notes that one more is wanted when one is running. One sync at a time:
    /// its push always finishes before its fetch, so a fetched page already reflects every change
    /// the backend acknowledged.
    func requestSync(_ state: inout State) -> Effect<Action> {
        guard state.isRunning, let uplink else { return .none }
        guard !state.isSyncing else {
            state.syncRequestedAgain = true
            return .none
        }
        state.isSyncing = true
        state.syncRequestedAgain = false
        state.sync.lastAttempt = clock.now().wall
        state.sync.nextAttempt = nil
        return .merge(
            .cancel(id: CancelID.syncTimer),
            .run { [store, batchSize, maximumPages, clock] send in
                let result = await Self.syncOnce(store: store, uplink: uplink, batchSize: batchSize,
                                                 maximumPages: maximumPages, now: { clock.now().wall })
                await send(.syncResponse(result))
            }
            .cancellable(id: CancelID.sync, cancelInFlight: true)
        )
    }

    func reduceSyncResponse(_ result: Result<SyncReport, UplinkFailure>, into state: inout State) -> Effect<Action> {
        state.isSyncing = false
        switch result {
        case let .success(report):
            state.sync.lastSuccess = clock.now().wall
            state.sync.lastFailure = nil
            state.sync.consecutiveFailures = 0
            let reload: Effect<Action> = report.pushed > 0 || report.received > 0 ? .send(.loadNotifications) : .none
            let next: Effect<Action> = state.syncRequestedAgain ? requestSync(&state) : scheduleSync(after: refreshInterval, &state)
            return .merge(reload, .send(.delegate(.synced(report))), next)

        case let .failure(failure):
            state.sync.lastFailure = failure
            state.sync.consecutiveFailures += 1
            state.syncRequestedAgain = false
            // A permanent failure (a revoked token, say) is not hammered: it waits for the periodic
            // refresh, or for the next change the person makes.
            let delay = failure.kind == .transient
                ? min(retryDelay(state.sync.consecutiveFailures, failure.retryAfter), refreshInterval) : refreshInterval
            return .merge(.send(.delegate(.syncFailed(failure))), scheduleSync(after: delay, &state))
        }
    }

    private func scheduleSync(after delay: Duration, _ state: inout State) -> Effect<Action> {
        guard state.isRunning else { return .none }
        state.sync.nextAttempt = clock.now().wall + delay
        return .run { [clock] send in
            do {
                try await clock.sleep(delay)
                await send(.syncTimerFired)
            } catch {}  // cancelled: a sync started earlier, or the daemon stops
        }
        .cancellable(id: CancelID.syncTimer, cancelInFlight: true)
    }

    /// Pushes the outbox (oldest first, marking only what the backend acknowledged), then fetches
    /// pages from the stored cursor and merges them.
    static func syncOnce(
        store: NotificationStoreClient, uplink: UplinkClient, batchSize: Int, maximumPages: Int,
        now: @Sendable () -> WallTime
    ) async -> Result<SyncReport, UplinkFailure> {
        var pushed = 0
        var received = 0
        do throws(UplinkFailure) {
            while true {
                let batch = try await storeStep("read the queued notification changes") { () async throws(StoreFailure) in
                    try await store.pendingChanges(batchSize)
                }
                guard !batch.isEmpty else { break }
                let sent = Set(batch.map(\.id))
                let acknowledged = try await uplink.pushNotificationChanges(batch).get().filter { sent.contains($0) }
                guard !acknowledged.isEmpty else {
                    throw UplinkFailure(.transient, "\(uplink.endpoint) acknowledged none of the \(batch.count) "
                                        + "notification changes sent; they stay queued")
                }
                pushed += try await storeStep("mark notification changes as synced") { () async throws(StoreFailure) in
                    try await store.markChangesSynced(acknowledged, now())
                }
                // A partial acknowledgement: the rest go with the next sync, not in a tight loop.
                if acknowledged.count < batch.count { break }
            }
            for _ in 0..<maximumPages {
                let cursor = try await storeStep("read the notifications cursor") { () async throws(StoreFailure) in
                    try await store.cursor()
                }
                let page = try await uplink.fetchNotifications(cursor).get()
                try await storeStep("store the notifications from the backend") { () async throws(StoreFailure) in
                    try await store.merge(page)
                }
                received += page.notifications.count + page.clearedIDs.count
                if !page.hasMore { break }
            }
        } catch {
            return .failure(error)
        }
        return .success(SyncReport(pushed: pushed, received: received))
    }

    /// A store failure during a sync is reported like a transient uplink failure: try again later.
    private static func storeStep<T>(
        _ action: String, _ body: () async throws(StoreFailure) -> T
    ) async throws(UplinkFailure) -> T {
        do {
            return try await body()
        } catch {
            throw UplinkFailure(.transient, "could not \(action): \(error.message)")
        }
    }
}
