import CheckInModels
import CheckInStoreClient
import Synchronization
import UplinkClient

/// An in-memory stand-in for the notifications store (the SQLite store has its own tests on real
/// files): it applies changes, keeps the outbox and the cursor, and can be made to fail.
final class FakeNotificationStore: Sendable {
    struct Contents {
        var notifications: [AppNotification] = []
        var preferences = NotificationPreferences()
        var pending: [NotificationChange] = []
        var synced: [String] = []
        var cursor: String?
        var failApply: StoreFailure?
        var failSavePreferences: StoreFailure?
    }

    let contents: Mutex<Contents>

    init(notifications: [AppNotification] = [], preferences: NotificationPreferences = NotificationPreferences(),
         cursor: String? = nil) {
        contents = Mutex(Contents(notifications: notifications, preferences: preferences, cursor: cursor))
    }

    var client: NotificationStoreClient {
        NotificationStoreClient(
            load: { [self] in
                contents.withLock {
                    NotificationSnapshot(notifications: $0.notifications, preferences: $0.preferences,
                                         pendingChangeCount: $0.pending.count)
                }
            },
            apply: { [self] change throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failApply { throw failure }
                    var queued = change
                    if !change.operation.needsNotificationID { queued.throughCursor = contents.cursor }
                    switch change.operation {
                    case .markRead:
                        for index in contents.notifications.indices where contents.notifications[index].id == change.notificationID {
                            contents.notifications[index].isRead = true
                        }
                    case .markAllRead:
                        for index in contents.notifications.indices { contents.notifications[index].isRead = true }
                    case .clear:
                        contents.notifications.removeAll { $0.id == change.notificationID }
                    case .clearAll:
                        contents.notifications = []
                    }
                    contents.pending.append(queued)
                    return queued
                }
            },
            savePreferences: { [self] preferences throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failSavePreferences { throw failure }
                    contents.preferences = preferences
                }
            },
            pendingChanges: { [self] limit in contents.withLock { Array($0.pending.prefix(limit)) } },
            markChangesSynced: { [self] ids, _ in
                contents.withLock { contents in
                    let before = contents.pending.count
                    contents.pending.removeAll { ids.contains($0.id) }
                    contents.synced += ids
                    return before - contents.pending.count
                }
            },
            cursor: { [self] in contents.withLock { $0.cursor } },
            merge: { [self] page in
                contents.withLock { contents in
                    contents.notifications.removeAll { page.clearedIDs.contains($0.id) }
                    for notification in page.notifications {
                        if let index = contents.notifications.firstIndex(where: { $0.id == notification.id }) {
                            contents.notifications[index] = notification
                        } else {
                            contents.notifications.insert(notification, at: 0)
                        }
                    }
                    if let cursor = page.cursor { contents.cursor = cursor }
                }
            }
        )
    }

    var notifications: [AppNotification] { contents.withLock { $0.notifications } }
    var preferences: NotificationPreferences { contents.withLock { $0.preferences } }
    var pending: [NotificationChange] { contents.withLock { $0.pending } }
    var synced: [String] { contents.withLock { $0.synced } }
    var cursor: String? { contents.withLock { $0.cursor } }
    func failApply(_ failure: StoreFailure?) { contents.withLock { $0.failApply = failure } }
    func failSavePreferences(_ failure: StoreFailure?) { contents.withLock { $0.failSavePreferences = failure } }
}

/// A scripted backend: answers fetches from a queue of pages (an empty page when none is queued),
/// acknowledges pushes unless told to fail, and records what it was asked.
final class FakeBackend: Sendable {
    struct Contents {
        var pages: [Result<NotificationPage, UplinkFailure>] = []
        var pushFailures: [UplinkFailure] = []
        /// Acknowledge only this many of each push (nil: all).
        var acknowledgeAtMost: Int?
        var fetchedAfter: [String?] = []
        var pushed: [[NotificationChange]] = []
    }

    let contents = Mutex(Contents())

    var client: UplinkClient {
        UplinkClient(
            endpoint: "http://backend.test",
            uploadCheckIns: { _ in .success([]) },
            fetchNotifications: { [self] after in
                contents.withLock { contents in
                    contents.fetchedAfter.append(after)
                    return contents.pages.isEmpty ? .success(NotificationPage(cursor: after)) : contents.pages.removeFirst()
                }
            },
            pushNotificationChanges: { [self] changes in
                contents.withLock { contents in
                    if !contents.pushFailures.isEmpty { return .failure(contents.pushFailures.removeFirst()) }
                    contents.pushed.append(changes)
                    return .success(Array(changes.prefix(contents.acknowledgeAtMost ?? changes.count)).map(\.id))
                }
            }
        )
    }

    func queue(_ pages: Result<NotificationPage, UplinkFailure>...) { contents.withLock { $0.pages += pages } }
    func failPushes(_ failures: UplinkFailure...) { contents.withLock { $0.pushFailures += failures } }
    func acknowledgeAtMost(_ count: Int?) { contents.withLock { $0.acknowledgeAtMost = count } }
    var fetchedAfter: [String?] { contents.withLock { $0.fetchedAfter } }
    var pushed: [[NotificationChange]] { contents.withLock { $0.pushed } }
}
