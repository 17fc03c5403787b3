import CheckInModels
import CheckInStoreClient
import NotificationsFeature
import XCTest

/// The person's operations: applied at once, stored with a queued change, remembered filters.
final class OperationTests: NotificationsTestCase {
    let ping = notification(1, .ping)
    let added = notification(2, .added)
    let alert = notification(3, .alert, read: true)

    func testMarkAsReadShowsAtOnceThenIsStoredAndQueued() async {
        let store = makeStore([ping, added, alert], online: false)
        await start(store, online: false)
        await clock.advance(by: .seconds(5))

        store.send(.markAsRead(added.id)) {
            $0.notifications[1].isRead = true
            $0.pendingChangeCount = 1
        }
        let queued = change(1, .markRead, added.id, at: .seconds(5))
        await store.receive(.changeResponse(queued, .success(queued)))
        await store.receive(.delegate(.changeSaved(queued)))
        XCTAssertEqual(fakeStore.pending, [queued])
        XCTAssertEqual(fakeStore.notifications.map(\.isRead), [false, true, true])
        XCTAssertEqual(store.state.unreadCount, 1)
        await stop(store)
    }

    func testMarkAllReadClearAndClearAllEachQueueOneChange() async {
        let store = makeStore([ping, added, alert], cursor: "41", online: false)
        await start(store, online: false)

        store.send(.markAllAsRead) {
            for index in $0.notifications.indices { $0.notifications[index].isRead = true }
            $0.pendingChangeCount = 1
        }
        let readAll = change(1, .markAllRead)
        let readAllQueued = change(1, .markAllRead, throughCursor: "41")
        await store.receive(.changeResponse(readAll, .success(readAllQueued)))
        await store.receive(.delegate(.changeSaved(readAllQueued)))

        store.send(.clearNotification(ping.id)) {
            $0.notifications.removeFirst()
            $0.pendingChangeCount = 2
        }
        let clear = change(2, .clear, ping.id)
        await store.receive(.changeResponse(clear, .success(clear)))
        await store.receive(.delegate(.changeSaved(clear)))

        store.send(.clearAllNotifications) {
            $0.notifications = []
            $0.pendingChangeCount = 3
        }
        let clearAll = change(3, .clearAll)
        let clearAllQueued = change(3, .clearAll, throughCursor: "41")
        await store.receive(.changeResponse(clearAll, .success(clearAllQueued)))
        await store.receive(.delegate(.changeSaved(clearAllQueued)))

        XCTAssertEqual(fakeStore.pending.map(\.operation), [.markAllRead, .clear, .clearAll])
        XCTAssertEqual(fakeStore.notifications, [])
        await stop(store)
    }

    func testAnUnknownIDChangesNothingAndSaysSo() async {
        let store = makeStore([ping], online: false)
        await start(store, online: false)
        store.send(.markAsRead("n-404"))
        await store.receive(.delegate(.unknownNotification("n-404")))
        store.send(.clearNotification("n-404"))
        await store.receive(.delegate(.unknownNotification("n-404")))
        XCTAssertEqual(fakeStore.pending, [])
        await stop(store)
    }

    func testAChangeTheStoreCannotKeepIsUndoneAndReported() async {
        let store = makeStore([ping, added], online: false)
        await start(store, online: false)
        let full = StoreFailure(.full, "disk full")
        fakeStore.failApply(full)

        store.send(.markAsRead(ping.id)) {
            $0.notifications[0].isRead = true
            $0.pendingChangeCount = 1
        }
        let wanted = change(1, .markRead, ping.id)
        await store.receive(.changeResponse(wanted, .failure(full))) {
            $0.pendingChangeCount = 0
            $0.error = NotificationsError(.changeNotSaved, "markRead was NOT saved and has been undone: disk full")
        }
        await store.receive(.loadNotifications) { $0.isLoading = true }
        await store.receive(.delegate(.changeNotSaved(wanted, full)))
        await store.receive(.notificationsResponse(.success(NotificationSnapshot(
            notifications: [ping, added], preferences: NotificationPreferences(), pendingChangeCount: 0)))) {
            $0.isLoading = false
            $0.notifications[0].isRead = false
        }

        // The disk has room again: the next change is kept and the error goes away.
        fakeStore.failApply(nil)
        store.send(.markAsRead(ping.id)) {
            $0.notifications[0].isRead = true
            $0.pendingChangeCount = 1
        }
        let retried = change(2, .markRead, ping.id)
        await store.receive(.changeResponse(retried, .success(retried))) { $0.error = nil }
        await store.receive(.delegate(.changeSaved(retried)))
        await stop(store)
    }

    func testTheFilterAndUnreadOnlyAreSavedAndShapeWhatIsShown() async {
        let store = makeStore([ping, added, alert], online: false)
        await start(store, online: false)
        XCTAssertEqual(store.state.visibleNotifications, [ping, added, alert])

        store.send(.setFilter(.alert)) { $0.preferences.filter = .alert }
        let alertsOnly = NotificationPreferences(filter: .alert)
        await store.receive(.preferencesSaveResponse(.success(alertsOnly)))
        await store.receive(.delegate(.preferencesSaved(alertsOnly)))
        XCTAssertEqual(store.state.visibleNotifications, [alert])

        store.send(.toggleUnreadOnly) { $0.preferences.unreadOnly = true }
        let unreadAlerts = NotificationPreferences(filter: .alert, unreadOnly: true)
        await store.receive(.preferencesSaveResponse(.success(unreadAlerts)))
        await store.receive(.delegate(.preferencesSaved(unreadAlerts)))
        XCTAssertEqual(store.state.visibleNotifications, [], "the only alert is read")

        store.send(.setFilter(nil)) { $0.preferences.filter = nil }
        let unreadAll = NotificationPreferences(unreadOnly: true)
        await store.receive(.preferencesSaveResponse(.success(unreadAll)))
        await store.receive(.delegate(.preferencesSaved(unreadAll)))
        XCTAssertEqual(store.state.visibleNotifications, [ping, added])
        XCTAssertEqual(fakeStore.preferences, unreadAll, "remembered by the store")

        let broken = StoreFailure(.readOnly, "read-only filesystem")
        fakeStore.failSavePreferences(broken)
        store.send(.setUnreadOnly(false)) { $0.preferences.unreadOnly = false }
        await store.receive(.preferencesSaveResponse(.failure(broken))) {
            $0.error = NotificationsError(.preferencesNotSaved,
                                          "the notification filter applies now but was NOT saved: read-only filesystem")
        }
        await store.receive(.delegate(.preferencesNotSaved(broken)))
        XCTAssertEqual(fakeStore.preferences, unreadAll)
        await stop(store)
    }

    func testTheRememberedFilterIsLoadedAtStart() async {
        let remembered = NotificationPreferences(filter: .ping, unreadOnly: true)
        let store = makeStore([ping, added, Self.notification(4, .ping, read: true)], preferences: remembered, online: false)
        await start(store, online: false)
        XCTAssertEqual(store.state.preferences, remembered)
        XCTAssertEqual(store.state.visibleNotifications, [ping])
        await stop(store)
    }

    func testAnOfflineDeviceKeepsItsChangesQueuedAndNeverSyncs() async {
        let store = makeStore([ping], online: false)
        await start(store, online: false)
        store.send(.refreshRequested)
        store.send(.markAsRead(ping.id)) {
            $0.notifications[0].isRead = true
            $0.pendingChangeCount = 1
        }
        let queued = change(1, .markRead, ping.id)
        await store.receive(.changeResponse(queued, .success(queued)))
        await store.receive(.delegate(.changeSaved(queued)))
        await clock.advance(by: Self.refresh * 3)
        XCTAssertEqual(backend.fetchedAfter, [])
        XCTAssertEqual(fakeStore.pending, [queued])
        await stop(store)
    }
}
