import CheckInFeature
import CheckInModels

/// Hands the feature's events to the uplink (both nil on an offline device): a stored check-in is
/// uploaded at once and brings the settings sync along; a settings change or load is synced; the
/// answers to pings are uploaded as soon as they are stored.
@MainActor
struct UplinkEvents {
    let uploader: Uploader?
    let settingsSync: SettingsSync?
    var pingResponses: BatchUploader<PingResponse>? = nil

    func handle(_ action: CheckInFeature.Action) {
        switch action {
        case .delegate(.checkInStored):
            uploader?.checkInStored()
            settingsSync?.sync()
        case .delegate(.pingsAnswered):
            pingResponses?.checkInStored()
        case .delegate(.settingsSaved), .checkInSettingsResponse(.success):
            settingsSync?.sync()
        default:
            break
        }
    }
}
