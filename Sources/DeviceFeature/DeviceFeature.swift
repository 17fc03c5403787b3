import CheckInFeature
import CheckInModels
import CheckInStoreClient
public import ComposableCore
public import DeviceConfig
import GPIOClient
import GPIOFeature
import HeartbeatFeature
import NotificationsFeature
import PingListenerFeature
import SettingsSyncFeature
import StoreHealthFeature
import UploadFeature
import PowerFeature
import MQTTFeature
import DependentsFeature
import RespondersFeature
import Backoff
import HealthchecksSyncFeature
import UplinkClient

/// The device as one feature: the check-in countdown, the store's health, the GPIO lines, the
/// notifications (and the uplink's parts where configured), composed by scoping, with the routing
/// between them as reducer logic: a stored check-in is uploaded, a failed write is a store problem,
/// a store that writes again saves what waited, the button's edges are presses.
public struct DeviceFeature: Reducer {
    /// The child features and the dependencies, in one object: they hold hundreds of dependency
    /// closures (about 8.7 KB inline), which a call through the `Reducer` conformance copied onto
    /// the stack for every action (`scripts/press-instructions` counts it).
    private let parts: Parts

    var checkIn: Scope<State, Action, CheckInFeature> { parts.checkIn }
    var store: Scope<State, Action, StoreHealthFeature> { parts.store }
    var gpio: Scope<State, Action, GPIOFeature> { parts.gpio }
    var notifications: Scope<State, Action, NotificationsFeature> { parts.notifications }
    var power: Scope<State, Action, PowerFeature> { parts.power }
    var uplink: UplinkFeatures { parts.uplink }
    var mqtt: MQTTFeature? { parts.mqtt }
    var dependents: DependentsFeature? { parts.dependents }
    var responders: RespondersFeature? { parts.responders }
    var dependencies: DeviceDependencies { parts.dependencies }

    public init(configuration: DeviceConfiguration, dependencies: DeviceDependencies) {
        parts = Parts(configuration: configuration, dependencies: dependencies)
    }

    private final class Parts {
        let checkIn: Scope<State, Action, CheckInFeature>
        let store: Scope<State, Action, StoreHealthFeature>
        let gpio: Scope<State, Action, GPIOFeature>
        let notifications: Scope<State, Action, NotificationsFeature>
        let power: Scope<State, Action, PowerFeature>
        let uplink: UplinkFeatures
        let mqtt: MQTTFeature?
        let dependents: DependentsFeature?
        let responders: RespondersFeature?
        let dependencies: DeviceDependencies

        init(configuration: DeviceConfiguration, dependencies: DeviceDependencies) {
            self.dependencies = dependencies
            checkIn = Scope(state: \.checkIn, action: .checkIn, namespace: Namespace.checkIn, child: CheckInFeature(
                store: dependencies.store.checkIns, clock: dependencies.clock, newCheckInID: dependencies.newID,
                alertStore: dependencies.store.alerts, timeZone: dependencies.timeZone))
            power = Scope(state: \.power, action: .power, namespace: Namespace.power, child: PowerFeature(
                store: dependencies.store.powerEvents, clock: dependencies.clock, newID: dependencies.newID))
            store = Scope(state: \.store, action: .store, namespace: Namespace.store, child: StoreHealthFeature(
                maintenance: dependencies.store.maintenance, clock: dependencies.clock))
            gpio = Scope(state: \.gpio, action: .gpio, namespace: Namespace.gpio,
                         child: GPIOFeature(gpio: dependencies.gpio, clock: dependencies.clock))
            notifications = Scope(state: \.notifications, action: .notifications, namespace: Namespace.notifications,
                                  child: NotificationsFeature(
                                      store: dependencies.store.notifications, uplink: dependencies.backend, clock: dependencies.clock,
                                      newChangeID: { [newID = dependencies.newID] in newID().description },
                                      refreshInterval: configuration.uplink?.notificationsRefresh ?? .seconds(300)))
            uplink = UplinkFeatures(configuration: configuration, dependencies: dependencies)
            mqtt = DeviceFeature.mqttFeature(configuration: configuration, dependencies: dependencies)
            dependents = DeviceFeature.dependentsFeature(configuration: configuration, dependencies: dependencies)
            responders = DeviceFeature.respondersFeature(configuration: configuration, dependencies: dependencies)
        }
    }

    /// The state a device starts in, from its configuration.
    /// `endpoints` names the uplink's targets for status and logs (from the live clients, which
    /// know how to show a URL without its secrets).
    public static func initialState(_ configuration: DeviceConfiguration, chipDescription: String,
                                    endpoints: Endpoints = Endpoints()) -> State {
        var checkIn = CheckInFeature.State(
            configuredSettings: configuration.configuredSettings,
            policy: configuration.settingsPolicy,
            acknowledgementDuration: configuration.acknowledgement,
            longPressDuration: configuration.button.longPress)
        if configuration.alert.enabled {
            checkIn.alert = AlertState(settings: AlertState.Settings(
                cancelWindow: configuration.alert.cancelWindow, deliveredDisplay: configuration.alert.deliveredDisplay,
                canDeliver: configuration.canDeliverAlerts))
        }
        checkIn.uploadBacklog = UploadBacklog(staleAfter: configuration.uplink?.staleAfter)
        checkIn.schedule = configuration.schedule
        checkIn.grace = configuration.grace
        checkIn.timeZone = configuration.timeZone
        checkIn.quietHours = configuration.quietHours
        checkIn.away.pressEnds = configuration.awayPressEnds
        var state = State(checkIn: checkIn, gpio: GPIOFeature.State(chipDescription: chipDescription))
        state.power = PowerFeature.State(watchesMains: configuration.power.mainsLine != nil,
                                         watchesLowBattery: configuration.power.lowBatteryLine != nil)
        UplinkFeatures.initialState(configuration, endpoints: endpoints, into: &state)
        state.mqtt = mqttState(configuration, endpoints: endpoints)
        state.role = configuration.device.role
        state.dependents = dependentsState(configuration, endpoints: endpoints)
        state.responders = respondersState(configuration, endpoints: endpoints)
        return state
    }

    /// The check-in write a stopping daemon waits for.
    public static let checkInWriteID = CheckInFeature.CancelID.checkInWrite.inside(Namespace.checkIn)
    /// The clean-stop mark a stopping daemon waits for (without it the next start reports an
    /// unexpected restart).
    public static let runMarkID = PowerFeature.CancelID.runMark.inside(Namespace.power)

    enum Namespace {
        static let checkIn = "check-in"
        static let store = "store"
        static let gpio = "gpio"
        static let notifications = "notifications"
        static let power = "power"
        static let mqtt = "mqtt"
        static let dependents = "dependents"
        static let responders = "responders"
    }

    enum CancelID {
        static let wallClock = EffectID("wall-clock")
        static let network = EffectID("network")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        // Only the feature the action is for runs (this runs for every action of every press).
        let child: Effect<Action>
        switch action {
        case .checkIn: child = checkIn.reduce(into: &state, action: action)
        case .store: child = store.reduce(into: &state, action: action)
        case .gpio: child = gpio.reduce(into: &state, action: action)
        case .notifications: child = notifications.reduce(into: &state, action: action)
        case .power: child = power.reduce(into: &state, action: action)
        case .checkInUpload, .alertUpload, .pingResponseUpload, .healthchecksUpload, .backendHeartbeat,
             .healthchecksHeartbeat, .pingListener, .settingsSync, .healthchecksAlertUpload, .healthchecksSync,
             .eventUpload, .healthchecksEventUpload:
            child = uplink.reduce(into: &state, action: action)
        case .mqtt:
            child = ScopeIfPresent(state: \.mqtt, action: .mqtt, namespace: Namespace.mqtt, child: mqtt).reduce(into: &state, action: action)
        case .dependents:
            child = ScopeIfPresent(state: \.dependents, action: .dependents, namespace: Namespace.dependents, child: dependents)
                .reduce(into: &state, action: action)
        case .responders:
            child = ScopeIfPresent(state: \.responders, action: .responders, namespace: Namespace.responders, child: responders)
                .reduce(into: &state, action: action)
        case .started, .stopping, .storedPingsResponse, .watchWallClock, .wallClockChanged, .watchNetwork,
             .networkChanged, .dismissMessages, .localPingStored, .pingsWithdrawn:
            child = .none
        }
        return .merge(child, route(action, &state), routeDependents(action, &state), routeMQTT(action, &state),
                      routeResponders(action, &state))
    }

    /// What one feature's outcome means for the others.
    func route(_ action: Action, _ state: inout State) -> Effect<Action> {
        switch action {
        case .started:
            state.isRunning = true
            return .merge(
                .send(.store(.start)),
                .send(.checkIn(.daemonStarted)),
                .send(.checkIn(.alert(.loadPending))),
                .send(.notifications(.daemonStarted)),
                .send(.power(.start)),
                loadStoredPings())

        case .stopping:
            state.isRunning = false
            return .merge(
                .send(.checkIn(.daemonStopping)),
                .send(.notifications(.daemonStopping)),
                .send(.power(.stopping)),
                .send(.store(.stop)),
                .cancel(id: CancelID.wallClock),
                .cancel(id: CancelID.network))

        case let .checkIn(.delegate(delegate)):
            return routeCheckIn(delegate, &state)

        case .store(.delegate(.writable)):
            // What could not be saved or read while the store failed is saved and read now.
            let events: Effect<Action> = state.power.unsaved.isEmpty ? .none : .send(.power(.storeWritable))
            guard state.needsReload else { return .merge(.send(.checkIn(.storeWritable)), events) }
            state.needsReload = false
            return .merge(.send(.checkIn(.storeWritable)), reloadEverything(), events)

        case let .store(.delegate(.recovered(report))):
            addMessage(.storeRecovered, "the store's files were deleted or replaced while the device ran: \(report.summary)", &state)
            // Another file may be at the path now: everything is read from it afresh.
            state.needsReload = false
            return reloadEverything()

        case let .store(.delegate(.replacedDamagedFile(message))):
            addMessage(.storeReplaced, message, &state)
            return .none

        case let .gpio(.buttonChanged(event)):
            guard let button = Self.checkInButtonAction(event, role: state.role) else { return routeWatcherButton(event.kind) }
            // Reduced in this same step, not sent as an action: a release's check-in write starts
            // with the edge, and each action a press passes through is work before the write.
            return checkIn.reduce(into: &state, action: .checkIn(button))

        case .gpio(.delegate(.linesLost)):
            return .send(.checkIn(.buttonLost))

        case let .gpio(.delegate(.input(line, active))):
            switch line {
            case .mains: return .send(.power(.mainsChanged(present: active)))
            case .lowBattery: return .send(.power(.lowBatteryChanged(low: active)))
            }

        case .power(.delegate(.eventStored)):
            // Sent to every target at once. (Not taken as proof that the store writes again: a
            // small event can fit in a write-ahead log whose disk is full; a check-in or the probe decides.)
            var effects: [Effect<Action>] = []
            if state.eventUpload != nil { effects.append(.send(.eventUpload(.itemStored))) }
            if state.healthchecksEventUpload != nil { effects.append(.send(.healthchecksEventUpload(.itemStored))) }
            return .merge(effects)

        case let .power(.delegate(.storeFailed(failure))):
            return .send(.store(.operationFailed(failure)))

        case .power(.delegate(.stopRequested)):
            return .run { [requestStop = dependencies.requestStop] _ in requestStop() }

        case let .storedPingsResponse(.success(pings)):
            return pings.isEmpty ? .none : .send(.checkIn(.pingsReceived(pings)))

        case let .storedPingsResponse(.failure(failure)):
            state.needsReload = true
            return .send(.store(.operationFailed(failure)))

        case let .notifications(.notificationsResponse(.failure(failure))):
            state.needsReload = true
            return .send(.store(.operationFailed(failure)))

        case .watchWallClock:
            return .run { [wallClock = dependencies.wallClock] send in
                guard let changes = wallClock.changes() else { return }
                for await _ in changes { await send(.wallClockChanged) }
            }
            .cancellable(id: CancelID.wallClock, cancelInFlight: true)

        case .wallClockChanged:
            return .send(.checkIn(.wallClockChanged))

        case .watchNetwork:
            return .run { [network = dependencies.network] send in
                guard let changes = network.changes() else { return }
                for await _ in changes { await send(.networkChanged) }
            }
            .cancellable(id: CancelID.network, cancelInFlight: true)

        case .networkChanged:
            // Every part waiting to retry tries now (those not configured have no state to tell).
            var effects: [Effect<Action>] = []
            if state.checkInUpload != nil { effects.append(.send(.checkInUpload(.networkChanged))) }
            if state.alertUpload != nil { effects.append(.send(.alertUpload(.networkChanged))) }
            if state.pingResponseUpload != nil { effects.append(.send(.pingResponseUpload(.networkChanged))) }
            if state.healthchecksUpload != nil { effects.append(.send(.healthchecksUpload(.networkChanged))) }
            if state.backendHeartbeat != nil { effects.append(.send(.backendHeartbeat(.networkChanged))) }
            if state.healthchecksHeartbeat != nil { effects.append(.send(.healthchecksHeartbeat(.networkChanged))) }
            if state.pingListener != nil { effects.append(.send(.pingListener(.networkChanged))) }
            if state.healthchecksAlertUpload != nil { effects.append(.send(.healthchecksAlertUpload(.networkChanged))) }
            if state.healthchecksSync != nil { effects.append(.send(.healthchecksSync(.networkChanged))) }
            if state.eventUpload != nil { effects.append(.send(.eventUpload(.networkChanged))) }
            if state.healthchecksEventUpload != nil { effects.append(.send(.healthchecksEventUpload(.networkChanged))) }
            return .merge(effects)

        case let .checkInUpload(.delegate(delegate)):
            switch delegate {
            case let .oldestPendingChanged(record):
                return .send(.checkIn(.uploadBacklogChanged(oldestPendingSince: record?.at)))
            case .reconnected:
                return .send(.notifications(.refreshRequested))
            case .acknowledged, .failed:
                return .none
            }

        case .healthchecksUpload(.delegate(.acknowledged)) where state.checkIn.away.running != nil && state.healthchecksSync != nil:
            // A check-in that did not end away mode ([away] press_ends = false) resumed the paused
            // check with its ping: pause it again.
            return .send(.healthchecksSync(.resyncRequested))

        case let .alertUpload(.delegate(.acknowledged(ids))), let .healthchecksAlertUpload(.delegate(.acknowledged(ids))):
            // The first target to take an alert delivers it; the others still get it, each once.
            return .send(.checkIn(.alert(.acknowledged(ids))))

        case .alertUpload(.delegate(.failed(let failure))) where failure.kind == .permanent,
             .healthchecksAlertUpload(.delegate(.failed(let failure))) where failure.kind == .permanent:
            // The device stops claiming to send only when every target refuses.
            let uploads = [state.alertUpload, state.healthchecksAlertUpload].compactMap { $0 }
            guard uploads.allSatisfy({ $0.status == .stopped }) else { return .none }
            let reasons = uploads.map { "\($0.endpoint): \($0.lastMessage ?? failure.message)" }
            return .send(.checkIn(.alert(.sendingRefused(reasons.joined(separator: "; ")))))

        case .healthchecksSync(.delegate(.inStep)):
            // Pings that waited for their checks to be created go now instead of after their backoff.
            var effects: [Effect<Action>] = []
            if state.healthchecksUpload != nil { effects.append(.send(.healthchecksUpload(.networkChanged))) }
            if state.healthchecksHeartbeat != nil { effects.append(.send(.healthchecksHeartbeat(.networkChanged))) }
            if state.healthchecksAlertUpload != nil { effects.append(.send(.healthchecksAlertUpload(.networkChanged))) }
            return .merge(effects)

        case let .pingListener(.delegate(.pingsReceived(pings))):
            return .merge(.send(.checkIn(.pingsReceived(pings))), .send(.notifications(.refreshRequested)))

        case .settingsSync(.delegate(.settingsFromBackendSaved)):
            return .send(.checkIn(.loadCheckInSettings))

        case .checkIn(.checkInSettingsResponse(.success)):
            return .merge(requestSettingsSync(state), keepChecksInStep(state))

        case .dismissMessages:
            state.messages = []
            return .send(.notifications(.dismissError))

        case .checkIn, .store, .gpio, .notifications, .checkInUpload, .alertUpload, .pingResponseUpload, .healthchecksUpload,
             .backendHeartbeat, .healthchecksHeartbeat, .pingListener, .settingsSync, .healthchecksAlertUpload, .healthchecksSync,
             .power, .eventUpload, .healthchecksEventUpload, .mqtt, .localPingStored, .dependents, .pingsWithdrawn, .responders:
            return .none
        }
    }

    private func routeCheckIn(_ delegate: CheckInFeature.Action.Delegate, _ state: inout State) -> Effect<Action> {
        switch delegate {
        case .checkInStored:
            // Uploaded at once to every target; a refused alert gets another try; settings synced.
            var effects: [Effect<Action>] = [.send(.store(.writeSucceeded))]
            if state.checkInUpload != nil { effects.append(.send(.checkInUpload(.itemStored))) }
            if state.healthchecksUpload != nil { effects.append(.send(.healthchecksUpload(.itemStored))) }
            if state.alertUpload != nil { effects.append(.send(.alertUpload(.itemStored))) }
            if state.healthchecksAlertUpload != nil { effects.append(.send(.healthchecksAlertUpload(.itemStored))) }
            return .merge(effects + [requestSettingsSync(state)])
        case .settingsSaved:
            return .merge(.send(.store(.writeSucceeded)), requestSettingsSync(state), keepChecksInStep(state))
        case .alertStored:
            var effects: [Effect<Action>] = [.send(.store(.writeSucceeded))]
            if state.alertUpload != nil { effects.append(.send(.alertUpload(.itemStored))) }
            if state.healthchecksAlertUpload != nil { effects.append(.send(.healthchecksAlertUpload(.itemStored))) }
            return .merge(effects)
        case .pingsAnswered:
            return state.pingResponseUpload == nil ? .none : .send(.pingResponseUpload(.itemStored))
        case let .loadFailed(failure):
            state.needsReload = true
            return .send(.store(.operationFailed(failure)))
        case let .checkInFailed(failure), let .settingsNotSaved(failure), let .alertNotStored(failure):
            return .send(.store(.operationFailed(failure)))
        case let .settingsRejected(problem):
            addMessage(.settingsRejected, "settings not changed: \(problem.message)", &state)
            return .none
        case let .storedSettingsRefused(problem):
            addMessage(.storedSettingsRefused, "stored settings are not allowed here (used anyway): \(problem.message)", &state)
            return .none
        case .longPressed, .alertCancelled, .awayRefused:
            return .none
        case .awayStarted, .awayEnded:
            // The backend learns it with the settings; the device's own check is paused or resumed.
            return .merge(.send(.store(.writeSucceeded)), requestSettingsSync(state), keepChecksInStep(state))
        case let .awayNotSaved(failure):
            return .send(.store(.operationFailed(failure)))
        }
    }

    /// Offers the device's settings to the backend (or takes the backend's newer ones), once they
    /// are loaded; nothing without an uplink.
    private func requestSettingsSync(_ state: State) -> Effect<Action> {
        guard state.settingsSync != nil, state.checkIn.hasLoadedSettings else { return .none }
        return .send(.settingsSync(.syncRequested(local: state.checkIn.storedSettings(), policy: state.checkIn.policy)))
    }

    /// The device's own healthchecks checks follow its settings (from the CLI, the config or the
    /// backend: each ends in settings loaded or saved); nothing without `api_key_file`.
    private func keepChecksInStep(_ state: State) -> Effect<Action> {
        guard state.healthchecksSync != nil, state.checkIn.hasLoadedSettings else { return .none }
        let checkIn = state.checkIn
        var daily = checkIn.schedule.daily
        // A cron check needs the zone's name: the system's, when the config names none.
        if daily != nil, daily?.timeZone == nil { daily?.timeZone = dependencies.timeZone.systemZoneName() }
        return .send(.healthchecksSync(.planChanged(CheckInCheckPlan(
            settings: checkIn.settings, grace: checkIn.grace, daily: daily, paused: checkIn.away.running != nil))))
    }

    /// Everything the device reads from the store, read again.
    private func reloadEverything() -> Effect<Action> {
        .merge(
            .send(.checkIn(.loadCheckInSettings)), .send(.checkIn(.loadCheckInHistory)),
            .send(.checkIn(.alert(.loadPending))), .send(.notifications(.loadNotifications)), loadStoredPings())
    }

    private func loadStoredPings() -> Effect<Action> {
        .run { [store = dependencies.store.checkIns] send in
            await send(.storedPingsResponse(await Result { () async throws(StoreFailure) in try await store.pendingPings() }))
        }
    }

    private func addMessage(_ kind: DeviceMessage.Kind, _ text: String, _ state: inout State) {
        state.messages.append(DeviceMessage(kind, text, at: dependencies.clock.now().wall))
        if state.messages.count > State.messageLimit { state.messages.removeFirst(state.messages.count - State.messageLimit) }
    }
}

extension ActionCase where Parent == DeviceFeature.Action, Child == CheckInFeature.Action {
    static let checkIn = ActionCase(embed: Parent.checkIn, extract: { if case let .checkIn(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == StoreHealthFeature.Action {
    static let store = ActionCase(embed: Parent.store, extract: { if case let .store(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == GPIOFeature.Action {
    static let gpio = ActionCase(embed: Parent.gpio, extract: { if case let .gpio(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == NotificationsFeature.Action {
    static let notifications = ActionCase(embed: Parent.notifications,
                                          extract: { if case let .notifications(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == PowerFeature.Action {
    static let power = ActionCase(embed: Parent.power, extract: { if case let .power(action) = $0 { action } else { nil } })
}

extension DeviceFeature {
    /// What a debounced edge of the button is to the person's check-in: nil on a watcher, whose
    /// button is the glance's. `route` reduces it and the log tells it by this one rule.
    static func checkInButtonAction(_ event: ButtonEvent, role: DeviceRole) -> CheckInFeature.Action? {
        guard role != .watcher else { return nil }
        return event.kind == .pressed ? .buttonPressed : .buttonReleased
    }
}
