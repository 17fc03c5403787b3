import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import ComposableCore
import DeviceClock
import DeviceConfig
import NotificationsFeature
import UplinkClient

extension Device {
    /// The notifications feature over the device's store and uplink (none on an offline device).
    static func makeNotifications(
        _ uplinkConfiguration: UplinkConfiguration?, store supervisor: StoreSupervisor, uplink: UplinkClient?,
        clock: DeviceClock
    ) -> Store<NotificationsFeature> {
        let storeClient = NotificationStoreClient.live(opening: { () async throws(StoreFailure) in
            try await supervisor.openDatabase()
        })
        let feature = NotificationsFeature(
            store: storeClient, uplink: uplink, clock: clock,
            refreshInterval: uplinkConfiguration?.notificationsRefresh ?? .seconds(300))
        return Store(initialState: NotificationsFeature.State(), reducer: feature)
    }

    /// Loads the stored notifications and starts syncing; a ping that arrives or the uplink coming
    /// back after an outage asks for a sync at once (`refreshRequested`).
    func startNotifications() -> NotificationsControl {
        notifications.observe { [notificationWaiters, logger] _, action in
            guard case let .delegate(delegate) = action else { return }
            notificationWaiters.deliver(delegate)
            switch delegate {
            case let .synced(report) where report.pushed > 0 || report.received > 0:
                logger.info("notifications synced", metadata: ["sent": "\(report.pushed)", "received": "\(report.received)"])
            case let .syncFailed(failure):
                logger.info("notifications not synced with the backend: \(failure.message)")
            case let .changeNotSaved(change, failure):
                logger.error("notification \(change.operation.rawValue) was NOT saved: \(failure.message)")
            case let .preferencesNotSaved(failure):
                logger.error("notification filter was NOT saved: \(failure.message)")
            default:
                break
            }
        }
        uploader?.onReconnected = { [notifications] in notifications.send(.refreshRequested) }
        notifications.send(.daemonStarted)
        return NotificationsControl(store: notifications, waiters: notificationWaiters, clock: clock,
                                    hasUplink: uploader != nil)
    }
}
