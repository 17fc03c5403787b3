public import ComposableCore
import CheckInFeature
import CheckInModels
import GPIOFeature
import HeartbeatFeature
import MQTTFeature
import NotificationsFeature
import PingListenerFeature
import SettingsSyncFeature
import StoreHealthFeature
import UploadFeature
import HealthchecksSyncFeature
import PowerFeature
import DependentsFeature
import RespondersFeature

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
            // A person's button edge is reduced by the check-in in the same step (DeviceFeature.route).
            if case let .buttonChanged(event) = action, let button = checkInButtonAction(event, role: after.role) {
                entries += CheckInFeature.log(button, before: before.checkIn, after: after.checkIn)
            }
        case let .notifications(.delegate(delegate)):
            entries += notificationsLog(delegate)
        case let .checkInUpload(action):
            entries += childLog(before.checkInUpload, after.checkInUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .alertUpload(action):
            entries += childLog(before.alertUpload, after.alertUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .pingResponseUpload(action):
            entries += childLog(before.pingResponseUpload, after.pingResponseUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .healthchecksUpload(action):
            entries += childLog(before.healthchecksUpload, after.healthchecksUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .backendHeartbeat(action):
            entries += childLog(before.backendHeartbeat, after.backendHeartbeat) { HeartbeatFeature.log(action, before: $0, after: $1) }
        case let .healthchecksHeartbeat(action):
            entries += childLog(before.healthchecksHeartbeat, after.healthchecksHeartbeat) { HeartbeatFeature.log(action, before: $0, after: $1) }
        case let .pingListener(action):
            entries += childLog(before.pingListener, after.pingListener) { PingListenerFeature.log(action, before: $0, after: $1) }
        case let .mqtt(action):
            entries += childLog(before.mqtt, after.mqtt) { MQTTFeature.log(action, before: $0, after: $1) }
        case let .settingsSync(action):
            entries += childLog(before.settingsSync, after.settingsSync) { SettingsSyncFeature.log(action, before: $0, after: $1) }
        case let .healthchecksAlertUpload(action):
            entries += childLog(before.healthchecksAlertUpload, after.healthchecksAlertUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .healthchecksSync(action):
            entries += childLog(before.healthchecksSync, after.healthchecksSync) { HealthchecksSyncFeature.log(action, before: $0, after: $1) }
        case let .power(action):
            entries += PowerFeature.log(action, before: before.power, after: after.power)
        case let .dependents(action):
            entries += childLog(before.dependents, after.dependents) { DependentsFeature.log(action, before: $0, after: $1) }
        case let .responders(action):
            entries += childLog(before.responders, after.responders) { RespondersFeature.log(action, before: $0, after: $1) }
        case let .eventUpload(action):
            entries += childLog(before.eventUpload, after.eventUpload) { UploadFeature.log(action, before: $0, after: $1) }
        case let .healthchecksEventUpload(action):
            entries += childLog(before.healthchecksEventUpload, after.healthchecksEventUpload) { UploadFeature.log(action, before: $0, after: $1) }
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

    /// A configured child's log lines (an unconfigured part, nil on both sides, has none).
    private static func childLog<Child>(_ before: Child?, _ after: Child?, _ log: (Child, Child) -> [LogEntry]) -> [LogEntry] {
        guard let before, let after else { return [] }
        return log(before, after)
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
