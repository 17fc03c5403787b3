public import ComposableCore
import CheckInFeature
import CheckInModels
import GPIOFeature
import HeartbeatFeature
import NotificationsFeature
import PingListenerFeature
import SettingsSyncFeature
import StoreHealthFeature
import UploadFeature
import HealthchecksSyncFeature
import PowerFeature

extension DeviceFeature {
    /// What is worth logging about what `action` did: each feature's own lines, and a line when a
    /// condition appears (at its severity) or clears.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        var entries: [LogEntry] = []
        switch action {
        case let .checkIn(action):
            entries += CheckInFeature.log(action, before: before.checkIn, after: after.checkIn)
        case let .gpio(action):
            entries += GPIOFeature.log(action, before: before.gpio, after: after.gpio)
        case let .notifications(.delegate(delegate)):
            entries += notificationsLog(delegate)
        case let .checkInUpload(action):
            if let before = before.checkInUpload, let after = after.checkInUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .alertUpload(action):
            if let before = before.alertUpload, let after = after.alertUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .pingResponseUpload(action):
            if let before = before.pingResponseUpload, let after = after.pingResponseUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .healthchecksUpload(action):
            if let before = before.healthchecksUpload, let after = after.healthchecksUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .backendHeartbeat(action):
            if let before = before.backendHeartbeat, let after = after.backendHeartbeat {
                entries += HeartbeatFeature.log(action, before: before, after: after)
            }
        case let .healthchecksHeartbeat(action):
            if let before = before.healthchecksHeartbeat, let after = after.healthchecksHeartbeat {
                entries += HeartbeatFeature.log(action, before: before, after: after)
            }
        case let .pingListener(action):
            if let before = before.pingListener, let after = after.pingListener {
                entries += PingListenerFeature.log(action, before: before, after: after)
            }
        case let .settingsSync(action):
            if let before = before.settingsSync, let after = after.settingsSync {
                entries += SettingsSyncFeature.log(action, before: before, after: after)
            }
        case let .healthchecksAlertUpload(action):
            if let before = before.healthchecksAlertUpload, let after = after.healthchecksAlertUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .healthchecksSync(action):
            if let before = before.healthchecksSync, let after = after.healthchecksSync {
                entries += HealthchecksSyncFeature.log(action, before: before, after: after)
            }
        case let .power(action):
            entries += PowerFeature.log(action, before: before.power, after: after.power)
        case let .eventUpload(action):
            if let before = before.eventUpload, let after = after.eventUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .healthchecksEventUpload(action):
            if let before = before.healthchecksEventUpload, let after = after.healthchecksEventUpload {
                entries += UploadFeature.log(action, before: before, after: after)
            }
        case let .store(.delegate(.recovered(report))):
            entries.append(LogEntry(.critical, "the store's files were deleted or replaced while the device ran: \(report.summary)"))
        case let .store(.delegate(.replacedDamagedFile(message))):
            entries.append(LogEntry(.critical, message))
        default:
            break
        }
        if before.conditionCauses != after.conditionCauses {
            let (previous, current) = (before.conditions, after.conditions)
            let was = Dictionary(previous.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
            let now = Dictionary(current.map { ($0.kind, $0) }, uniquingKeysWith: { first, _ in first })
            for condition in current where was[condition.kind]?.message != condition.message {
                entries.append(LogEntry(condition.isFault ? .error : .warning, condition.message,
                                        metadata: ["condition": condition.kind.rawValue, "advice": condition.advice]))
            }
            for condition in previous where now[condition.kind] == nil {
                entries.append(LogEntry(.notice, "cleared: \(condition.message)", metadata: ["condition": condition.kind.rawValue]))
            }
        }
        return entries
    }

    private static func notificationsLog(_ delegate: NotificationsFeature.Action.Delegate) -> [LogEntry] {
        switch delegate {
        case let .synced(report) where report.pushed > 0 || report.received > 0:
            [LogEntry(.info, "notifications synced", metadata: ["sent": "\(report.pushed)", "received": "\(report.received)"])]
        case let .syncFailed(failure):
            [LogEntry(.info, "notifications not synced with the backend: \(failure.message)")]
        case let .changeNotSaved(change, failure):
            [LogEntry(.error, "notification \(change.operation.rawValue) was NOT saved: \(failure.message)")]
        case let .preferencesNotSaved(failure):
            [LogEntry(.error, "notification filter was NOT saved: \(failure.message)")]
        default:
            []
        }
    }
}
