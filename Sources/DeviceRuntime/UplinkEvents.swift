import CheckInFeature
import CheckInModels
import ComposableCore
import UplinkClient

/// Hands the feature's events to the uplink (nil on an offline device), and the uploaders' events
/// back to the feature: a stored check-in is uploaded at once and brings the settings sync along
/// (and another attempt at an alert the backend refused); a stored alert is sent at once; the
/// answers to pings are uploaded as soon as they are stored; a settings change or load is synced.
@MainActor
struct UplinkEvents {
    let uplink: Uplink?
    let settingsSync: SettingsSync?
    var pingResponses: Uploader<PingResponse>? = nil
    var deliveries: DeliveryServices? = nil

    func handle(_ action: CheckInFeature.Action) {
        switch action {
        case .delegate(.checkInStored):
            uplink?.checkIns.itemStored()
            uplink?.alerts.itemStored()
            deliveries?.checkInStored()
            settingsSync?.sync()
        case .delegate(.pingsAnswered):
            pingResponses?.itemStored()
        case .delegate(.alertStored):
            uplink?.alerts.itemStored()
        case .delegate(.settingsSaved), .checkInSettingsResponse(.success):
            settingsSync?.sync()
        default:
            break
        }
    }

    /// The check-in queue's head drives the "not uploaded" LEDs; the alert queue's acknowledgements
    /// and refusals drive the alert's.
    func forwardUploads(to store: Store<CheckInFeature>) {
        uplink?.checkIns.onEvent = { [weak store] event in
            if case let .oldestPending(record) = event {
                store?.send(.uploadBacklogChanged(oldestPendingSince: record?.at))
            }
        }
        uplink?.alerts.onEvent = { [weak store] event in
            switch event {
            case let .acknowledged(ids):
                store?.send(.alert(.acknowledged(ids)))
            case let .failed(failure) where failure.kind == .permanent:
                store?.send(.alert(.sendingRefused(failure.message)))
            case .oldestPending, .failed:
                break
            }
        }
    }
}
