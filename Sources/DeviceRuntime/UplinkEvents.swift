import CheckInFeature

/// Hands the feature's events to the uplink (both nil on an offline device): a stored check-in is
/// uploaded at once and brings the settings sync along; a settings change or load is synced.
@MainActor
struct UplinkEvents {
    let uploader: Uploader?
    let settingsSync: SettingsSync?
    var deliveries: DeliveryServices? = nil

    func handle(_ action: CheckInFeature.Action) {
        switch action {
        case .delegate(.checkInStored):
            uploader?.checkInStored()
            deliveries?.checkInStored()
            settingsSync?.sync()
        case .delegate(.settingsSaved), .checkInSettingsResponse(.success):
            settingsSync?.sync()
        default:
            break
        }
    }
}
