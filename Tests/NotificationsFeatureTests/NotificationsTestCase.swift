import CheckInModels
import CheckInStoreClient
import Clocks
import TestSupport
import ConcurrencyExtras
import DeviceClock
import NotificationsFeature
import Synchronization
import UplinkClient
import XCTest

/// Shared set-up: a test clock for "now" and sleeping, numbered change ids, a fake store and a
/// scripted backend, and a retry delay that is not random (10 s per consecutive failure).
@MainActor
class NotificationsTestCase: XCTestCase {
    // Effects and the test clock must interleave deterministically (see CheckInFeatureTests).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    nonisolated static let start = DeviceInstant(wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000),
                                     bootID: "boot-a", wallClockSynchronized: true)
    static let refresh = Duration.seconds(300)

    var clock: TestClock<Duration>!
    var fakeStore: FakeNotificationStore!
    var backend: FakeBackend!
    final class Counter: Sendable { let value = Mutex(0) }
    let changeCounter = Counter()

    func makeStore(
        _ notifications: [AppNotification] = [], preferences: NotificationPreferences = NotificationPreferences(),
        cursor: String? = nil, online: Bool = true
    ) -> TestStore<NotificationsFeature> {
        clock = TestClock()
        fakeStore = FakeNotificationStore(notifications: notifications, preferences: preferences, cursor: cursor)
        backend = FakeBackend()
        let feature = NotificationsFeature(
            store: fakeStore.client, uplink: online ? backend.client : nil,
            clock: DeviceClock.driven(by: clock, startingAt: Self.start),
            newChangeID: { [changeCounter] in
                changeCounter.value.withLock { count in
                    count += 1
                    return "change-\(count)"
                }
            },
            refreshInterval: Self.refresh,
            retryDelay: { failures, retryAfter in max(.seconds(10) * failures, retryAfter ?? .zero) }
        )
        return TestStore(initialState: NotificationsFeature.State(), reducer: feature)
    }

    /// The wall time `offset` after the test's start.
    nonisolated func wall(_ offset: Duration = .zero) -> WallTime { Self.start.wall + offset }

    static func notification(_ n: Int, _ type: NotificationType = .ping, read: Bool = false) -> AppNotification {
        AppNotification(id: "n-\(n)", type: type, createdAt: start.wall + .seconds(-60 * n), isRead: read,
                        title: "notification \(n)", body: n % 2 == 0 ? "body \(n)" : nil)
    }

    func change(_ n: Int, _ operation: NotificationChange.Operation, _ id: String? = nil, at offset: Duration = .zero,
                throughCursor: String? = nil) -> NotificationChange {
        NotificationChange(id: "change-\(n)", operation: operation, notificationID: id, at: wall(offset),
                           throughCursor: throughCursor)
    }

    /// Steps the store through start-up: the stored notifications load, and (online) the first
    /// sync finds nothing new and schedules the periodic refresh.
    func start(_ store: TestStore<NotificationsFeature>, online: Bool = true) async {
        let stored = fakeStore.contents.withLock {
            NotificationSnapshot(notifications: $0.notifications, preferences: $0.preferences, pendingChangeCount: $0.pending.count)
        }
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.notificationsResponse(.success(stored))) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notifications = stored.notifications
            $0.preferences = stored.preferences
            $0.pendingChangeCount = stored.pendingChangeCount
            if online {
                $0.isSyncing = true
                $0.sync.lastAttempt = self.wall()
            }
        }
        guard online else { return }
        let report = NotificationsFeature.SyncReport(pushed: 0, received: 0)
        await store.receive(.syncResponse(.success(report))) {
            $0.isSyncing = false
            $0.sync.lastSuccess = self.wall()
            $0.sync.nextAttempt = self.wall(Self.refresh)
        }
        await store.receive(.delegate(.synced(report)))
    }

    func stop(_ store: TestStore<NotificationsFeature>) async {
        store.send(.daemonStopping) {
            $0.isRunning = false
            $0.sync.nextAttempt = nil
        }
        await store.finish()
    }
}
