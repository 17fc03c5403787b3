import CheckInModels
import ComposableCore
import ControlProtocol
import DeviceClock
import DeviceFeature
import NotificationsFeature

/// Answers `lifesignalctl notifications …`: sends the feature the operator's action, waits until it
/// is stored (or refused), and answers with the list as the remembered filter shows it.
@MainActor
final class NotificationsControl {
    typealias Delegate = NotificationsFeature.Action.Delegate
    let store: Store<DeviceFeature>
    let waiters: ActionWaiters<DeviceFeature.Action>
    let clock: DeviceClock
    let hasUplink: Bool
    static let answerTimeout = Duration.seconds(10)

    init(store: Store<DeviceFeature>, waiters: ActionWaiters<DeviceFeature.Action>, clock: DeviceClock, hasUplink: Bool) {
        self.store = store
        self.waiters = waiters
        self.clock = clock
        self.hasUplink = hasUplink
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request.command {
        case .notifications:
            return await list(type: request.type, unreadOnly: request.unreadOnly)
        case .notificationsReadAll:
            return await change(.markAllAsRead, .markAllRead, nil)
        case .notificationsClearAll:
            return await change(.clearAllNotifications, .clearAll, nil)
        case .notificationRead, .notificationClear:
            let resolved: String
            do {
                resolved = try resolve(request.notificationID)
            } catch {
                return .failure(error.message)
            }
            return request.command == .notificationRead
                ? await change(.markAsRead(resolved), .markRead, resolved)
                : await change(.clearNotification(resolved), .clear, resolved)
        default:
            return .failure("not a notifications request: \(request.command.rawValue)")
        }
    }

    /// Changes the remembered filter if asked, then answers with the list.
    private func list(type: String?, unreadOnly: Bool?) async -> ControlResponse {
        if let type {
            let filter: NotificationType?
            if type.lowercased() == "all" {
                filter = nil
            } else if let known = NotificationType(operatorText: type) {
                filter = known
            } else {
                return .failure("unknown notification type '\(type)'; use all, "
                                + NotificationType.allCases.map(\.operatorText).joined(separator: ", "))
            }
            if let refusal = await savePreferences(trigger: .setFilter(filter)) { return refusal }
        }
        if let unreadOnly, let refusal = await savePreferences(trigger: .setUnreadOnly(unreadOnly)) { return refusal }
        return ControlResponse(notifications: report())
    }

    private func savePreferences(trigger action: NotificationsFeature.Action) async -> ControlResponse? {
        let answer = await delegate(
            accepting: {
                switch $0 {
                case .preferencesSaved, .preferencesNotSaved: true
                default: false
                }
            },
            trigger: action)
        switch answer {
        case .preferencesSaved?:
            return nil
        case let .preferencesNotSaved(failure)?:
            return .failure("the filter applies now but was NOT saved (it will not survive a restart): \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.humane(Self.answerTimeout))")
        }
    }

    /// Sends a change and waits until it is stored and queued (or refused).
    private func change(
        _ action: NotificationsFeature.Action, _ operation: NotificationChange.Operation, _ id: String?
    ) async -> ControlResponse {
        let answer = await delegate(
            accepting: {
                switch $0 {
                case let .changeSaved(change), let .changeNotSaved(change, _):
                    change.operation == operation && change.notificationID == id
                case let .unknownNotification(unknown):
                    unknown == id
                default:
                    false
                }
            },
            trigger: action)
        switch answer {
        case .changeSaved?:
            return ControlResponse(notifications: report())
        case let .changeNotSaved(_, failure)?:
            return .failure("\(operation.rawValue) was NOT saved and has been undone: \(failure.message)")
        case .unknownNotification?:
            return .failure(Self.unknown(id ?? ""))
        default:
            return .failure("no answer from the store within \(DurationText.humane(Self.answerTimeout))")
        }
    }

    /// Sends `action` to the notifications and waits for the first delegate `accepting` takes.
    private func delegate(accepting: @escaping (Delegate) -> Bool, trigger action: NotificationsFeature.Action) async -> Delegate? {
        let answer = await waiters.wait(
            for: { if case let .notifications(.delegate(delegate)) = $0 { accepting(delegate) } else { false } },
            timeout: Self.answerTimeout, sleep: clock.sleep, trigger: { store.send(.notifications(action)) })
        guard case let .notifications(.delegate(delegate))? = answer else { return nil }
        return delegate
    }

    /// An id as typed: the whole id, or a prefix only one notification has (the list shows 8 characters).
    private func resolve(_ typed: String?) throws(Refusal) -> String {
        guard let typed, !typed.isEmpty else { throw Refusal(message: "give the notification's id") }
        let ids = store.state.notifications.notifications.map(\.id)
        if ids.contains(typed) { return typed }
        let matches = ids.filter { $0.hasPrefix(typed) }
        switch matches.count {
        case 1:
            return matches[0]
        case 0:
            throw Refusal(message: Self.unknown(typed))
        default:
            throw Refusal(message: "\(matches.count) notifications have ids starting with \(typed); give more of the id")
        }
    }

    private static func unknown(_ id: String) -> String {
        "no notification with id \(id) on this device; `lifesignalctl notifications --all --type all` lists them"
    }

    private struct Refusal: Error {
        let message: String
    }

    func report() -> NotificationsReport {
        let state = store.state.notifications
        let sync = state.sync
        return NotificationsReport(
            filter: state.preferences.filter?.rawValue ?? "all",
            unreadOnly: state.preferences.unreadOnly,
            notifications: state.visibleNotifications.map(NotificationReport.init),
            total: state.notifications.count,
            unread: state.unreadCount,
            pendingChanges: state.pendingChangeCount,
            sync: hasUplink ? NotificationSyncReport(
                syncing: state.isSyncing, lastAttempt: sync.lastAttempt?.iso8601, lastSuccess: sync.lastSuccess?.iso8601,
                lastFailure: sync.lastFailure?.message, consecutiveFailures: sync.consecutiveFailures,
                nextAttempt: sync.nextAttempt?.iso8601) : nil,
            error: state.error?.message)
    }
}
