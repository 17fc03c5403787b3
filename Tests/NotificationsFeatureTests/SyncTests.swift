import CheckInModels
import CheckInStoreClient
@testable import NotificationsFeature
import UplinkClient
import XCTest

/// The sync with the backend: push the outbox, then fetch from the cursor; periodic, retried,
/// and at once when asked.
final class SyncTests: NotificationsTestCase {
    let ping = notification(1, .ping)
    let added = notification(2, .added)

    func testStartLoadsWhatIsStoredThenFetchesFromTheCursorAndRefreshesPeriodically() async {
        let remembered = NotificationPreferences(filter: .alert)
        let store = makeStore([ping, added], preferences: remembered, cursor: "7")
        let fresh = AppNotification(id: "n-new", type: .alert, createdAt: wall(.seconds(-5)), title: "Anna needs help")
        backend.queue(.success(NotificationPage(notifications: [fresh], clearedIDs: [added.id], cursor: "9")))

        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.notificationsResponse(.success(NotificationSnapshot(
            notifications: [ping, added], preferences: remembered, pendingChangeCount: 0)))) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notifications = [self.ping, self.added]
            $0.preferences = remembered
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall()
        }
        let report = NotificationsFeature.SyncReport(pushed: 0, received: 2)
        await store.receive(.syncResponse(.success(report))) {
            $0.isSyncing = false
            $0.sync.lastSuccess = self.wall()
            $0.sync.nextAttempt = self.wall(Self.refresh)
        }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.delegate(.synced(report)))
        await store.receive(.notificationsResponse(.success(NotificationSnapshot(
            notifications: [fresh, ping], preferences: remembered, pendingChangeCount: 0)))) {
            $0.isLoading = false
            $0.notifications = [fresh, self.ping]
        }
        XCTAssertEqual(backend.fetchedAfter, ["7"])
        XCTAssertEqual(fakeStore.cursor, "9")
        XCTAssertEqual(store.state.visibleNotifications, [fresh])

        // Nothing else happens until the refresh interval has passed.
        await clock.advance(by: Self.refresh - .seconds(1))
        XCTAssertEqual(backend.fetchedAfter, ["7"])
        await clock.advance(by: .seconds(1))
        await store.receive(.syncTimerFired) {
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall(Self.refresh)
            $0.sync.nextAttempt = nil
        }
        let nothing = NotificationsFeature.SyncReport(pushed: 0, received: 0)
        await store.receive(.syncResponse(.success(nothing))) {
            $0.isSyncing = false
            $0.sync.lastSuccess = self.wall(Self.refresh)
            $0.sync.nextAttempt = self.wall(Self.refresh * 2)
        }
        await store.receive(.delegate(.synced(nothing)))
        XCTAssertEqual(backend.fetchedAfter, ["7", "9"])
        await stop(store)
    }

    func testAChangeIsPushedAtOnceAndMarkedSyncedOnlyWhenAcknowledged() async {
        let store = makeStore([ping, added])
        await start(store)
        await clock.advance(by: .seconds(30))

        store.send(.markAsRead(ping.id)) {
            $0.notifications[0].isRead = true
            $0.pendingChangeCount = 1
        }
        let queued = change(1, .markRead, ping.id, at: .seconds(30))
        await store.receive(.changeResponse(queued, .success(queued))) {
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall(.seconds(30))
            $0.sync.nextAttempt = nil
        }
        await store.receive(.delegate(.changeSaved(queued)))
        let report = NotificationsFeature.SyncReport(pushed: 1, received: 0)
        await store.receive(.syncResponse(.success(report))) {
            $0.isSyncing = false
            $0.sync.lastSuccess = self.wall(.seconds(30))
            $0.sync.nextAttempt = self.wall(.seconds(30) + Self.refresh)
        }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.delegate(.synced(report)))
        var read = ping
        read.isRead = true
        await store.receive(.notificationsResponse(.success(NotificationSnapshot(
            notifications: [read, added], preferences: NotificationPreferences(), pendingChangeCount: 0)))) {
            $0.isLoading = false
            $0.pendingChangeCount = 0
        }
        XCTAssertEqual(backend.pushed, [[queued]])
        XCTAssertEqual(fakeStore.synced, [queued.id])
        await stop(store)
    }

    func testTransientFailuresBackOffPermanentOnesWaitForTheRefreshAndSuccessResets() async {
        let store = makeStore([ping])
        let down = UplinkFailure(.transient, "connection refused")
        backend.queue(.failure(down), .failure(down))

        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.notificationsResponse(.success(NotificationSnapshot(
            notifications: [ping], preferences: NotificationPreferences(), pendingChangeCount: 0)))) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notifications = [self.ping]
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall()
        }
        await store.receive(.syncResponse(.failure(down))) {
            $0.isSyncing = false
            $0.sync.lastFailure = down
            $0.sync.consecutiveFailures = 1
            $0.sync.nextAttempt = self.wall(.seconds(10))
        }
        await store.receive(.delegate(.syncFailed(down)))

        await clock.advance(by: .seconds(10))
        await store.receive(.syncTimerFired) {
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall(.seconds(10))
            $0.sync.nextAttempt = nil
        }
        await store.receive(.syncResponse(.failure(down))) {
            $0.isSyncing = false
            $0.sync.consecutiveFailures = 2
            $0.sync.nextAttempt = self.wall(.seconds(30))
        }
        await store.receive(.delegate(.syncFailed(down)))

        await clock.advance(by: .seconds(20))
        await store.receive(.syncTimerFired) {
            $0.isSyncing = true
            $0.sync.lastAttempt = self.wall(.seconds(30))
            $0.sync.nextAttempt = nil
        }
        let nothing = NotificationsFeature.SyncReport(pushed: 0, received: 0)
        await store.receive(.syncResponse(.success(nothing))) {
            $0.isSyncing = false
            $0.sync.lastSuccess = self.wall(.seconds(30))
            $0.sync.lastFailure = nil
            $0.sync.consecutiveFailures = 0
            $0.sync.nextAttempt = self.wall(.seconds(30) + Self.refresh)
        }
        await store.receive(.delegate(.synced(nothing)))

        // A revoked token is not retried in a tight loop: the next try is a refresh interval away.
        let refused = UplinkFailure(.permanent, "GET /v1/notifications answered HTTP 401", httpStatus: 401)
        backend.queue(.failure(refused))
        store.send(.refreshRequested) {
            $0.isSyncing = true
            $0.sync.nextAttempt = nil
        }
        await store.receive(.syncResponse(.failure(refused))) {
            $0.isSyncing = false
            $0.sync.lastFailure = refused
            $0.sync.consecutiveFailures = 1
            $0.sync.nextAttempt = self.wall(.seconds(30) + Self.refresh)
        }
        await store.receive(.delegate(.syncFailed(refused)))
        XCTAssertEqual(backend.fetchedAfter.count, 4)
        await stop(store)
    }

    func testARefreshAskedForDuringASyncRunsOneMoreSyncAfterIt() async {
        let store = makeStore([ping])
        await start(store)
        store.send(.refreshRequested) {
            $0.isSyncing = true
            $0.sync.nextAttempt = nil
        }
        store.send(.refreshRequested) { $0.syncRequestedAgain = true }
        store.send(.refreshRequested)
        let nothing = NotificationsFeature.SyncReport(pushed: 0, received: 0)
        await store.receive(.syncResponse(.success(nothing))) {
            $0.syncRequestedAgain = false  // the next sync has started already
        }
        await store.receive(.delegate(.synced(nothing)))
        await store.receive(.syncResponse(.success(nothing))) {
            $0.isSyncing = false
            $0.sync.nextAttempt = self.wall(Self.refresh)
        }
        await store.receive(.delegate(.synced(nothing)))
        XCTAssertEqual(backend.fetchedAfter.count, 3, "start-up, the refresh, and one more for the two asked during it")
        await stop(store)
    }

    // MARK: One sync, step by step

    func testOneSyncPushesOnlyUntilAPartialAcknowledgementAndFollowsPagesToTheEnd() async {
        _ = makeStore()
        let queued = [change(1, .markRead, "n-1"), change(2, .clear, "n-2"), change(3, .clearAll, throughCursor: "4")]
        fakeStore.contents.withLock { $0.pending = queued }
        backend.acknowledgeAtMost(2)
        let first = AppNotification(id: "n-5", type: .role, createdAt: wall(), title: "Bob is now your responder")
        let second = AppNotification(id: "n-6", type: .checkIn, createdAt: wall(), title: "Check-in overdue")
        backend.queue(.success(NotificationPage(notifications: [first], cursor: "5", hasMore: true)),
                      .success(NotificationPage(notifications: [second], clearedIDs: ["n-2"], cursor: "6")))

        let result = await NotificationsFeature.syncOnce(store: fakeStore.client, uplink: backend.client, batchSize: 10,
                                                         maximumPages: 5, now: { self.wall() })
        XCTAssertEqual(result, .success(NotificationsFeature.SyncReport(pushed: 2, received: 3)))
        XCTAssertEqual(backend.pushed, [queued], "one push; the unacknowledged change waits for the next sync")
        XCTAssertEqual(fakeStore.pending, [queued[2]])
        XCTAssertEqual(backend.fetchedAfter, [nil, "5"])
        XCTAssertEqual(fakeStore.cursor, "6")
    }

    func testABackendThatAcknowledgesNothingIsATransientFailureAndTheChangesStay() async {
        _ = makeStore()
        let queued = [change(1, .markAllRead)]
        fakeStore.contents.withLock { $0.pending = queued }
        backend.acknowledgeAtMost(0)
        let result = await NotificationsFeature.syncOnce(store: fakeStore.client, uplink: backend.client, batchSize: 10,
                                                         maximumPages: 5, now: { self.wall() })
        guard case let .failure(failure) = result else { return XCTFail("expected a failure, got \(result)") }
        XCTAssertEqual(failure.kind, .transient)
        XCTAssertTrue(failure.message.contains("acknowledged none"), failure.message)
        XCTAssertEqual(fakeStore.pending, queued)
        XCTAssertEqual(backend.fetchedAfter, [], "no fetch before the outbox went through")
    }

    func testAPageBeyondTheLimitWaitsForTheNextSync() async {
        _ = makeStore()
        for n in 0..<3 {
            backend.queue(.success(NotificationPage(notifications: [Self.notification(10 + n)], cursor: "\(n + 1)", hasMore: true)))
        }
        let result = await NotificationsFeature.syncOnce(store: fakeStore.client, uplink: backend.client, batchSize: 10,
                                                         maximumPages: 2, now: { self.wall() })
        XCTAssertEqual(result, .success(NotificationsFeature.SyncReport(pushed: 0, received: 2)))
        XCTAssertEqual(fakeStore.cursor, "2")
    }
}
