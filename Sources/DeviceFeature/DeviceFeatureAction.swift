public import CheckInFeature
public import CheckInModels
public import CheckInStoreClient
public import GPIOFeature
public import MQTTFeature
public import HeartbeatFeature
public import NotificationsFeature
public import PingListenerFeature
public import SettingsSyncFeature
public import StoreHealthFeature
public import UploadFeature
public import HealthchecksSyncFeature
public import PowerFeature
public import DependentsFeature
public import RespondersFeature

extension DeviceFeature {
    public enum Action: Equatable, Sendable {
        /// The daemon has started: the store proves it can write, the features load.
        case started
        /// The daemon is stopping: timers end; a check-in being written is finished.
        case stopping
        case checkIn(CheckInFeature.Action)
        case store(StoreHealthFeature.Action)
        case gpio(GPIOFeature.Action)
        case notifications(NotificationsFeature.Action)
        case checkInUpload(UploadFeature<CheckInRecord>.Action)
        case alertUpload(UploadFeature<AlertRecord>.Action)
        case pingResponseUpload(UploadFeature<PingResponse>.Action)
        case healthchecksUpload(UploadFeature<CheckInRecord>.Action)
        case backendHeartbeat(HeartbeatFeature.Action)
        case healthchecksHeartbeat(HeartbeatFeature.Action)
        case pingListener(PingListenerFeature.Action)
        case settingsSync(SettingsSyncFeature.Action)
        case healthchecksAlertUpload(UploadFeature<AlertRecord>.Action)
        case healthchecksSync(HealthchecksSyncFeature.Action)
        /// The mains power, the battery, the previous run's end.
        case power(PowerFeature.Action)
        /// The device's own events to the backend and to the healthchecks check-in check.
        case eventUpload(UploadFeature<PowerEvent>.Action)
        case healthchecksEventUpload(UploadFeature<PowerEvent>.Action)
        /// Pings stored before a restart (or before the store could be read) light again.
        case storedPingsResponse(Result<[PendingPing], StoreFailure>)
        /// Listen for the wall clock being set or stepped (a long-living effect a service awaits).
        case watchWallClock
        case wallClockChanged
        /// Listen for the network coming back (a long-living effect a service awaits).
        case watchNetwork
        case networkChanged
        /// `lifesignalctl dismiss-error`: the messages go; conditions stay until their cause is gone.
        case dismissMessages
        case mqtt(MQTTFeature.Action)
        /// A ping raised on the device (MQTT's `ask_if_ok`) was stored (with every ping still pending), or not.
        case localPingStored(PendingPing, Result<[PendingPing], StoreFailure>)
        /// A watcher's dependents (`[device] role = "watcher"` or `"both"`).
        case dependents(DependentsFeature.Action)
        /// The person's responders (a person's device, or one that is both).
        case responders(RespondersFeature.Action)
        /// The pings a watcher withdrew (`clear_ping`) were removed from the store, or not.
        case pingsWithdrawn(StoreFailure?)
    }
}
