import CheckInFeature
public import CheckInModels
import CheckInStoreClient
import ComposableCore
import DependentsFeature
import DeviceConfig
import GPIOClient
public import LEDLanguage
import MQTTFeature

/// A watcher's share of the device (docs/dependents.md): its dependents heard on the device's MQTT
/// connection or polled, its button, and the glance its LEDs give. On a person's device, what a
/// watcher asks of it: `clear_ping` and `on_it`.
extension DeviceFeature {
    static func dependentsFeature(configuration: DeviceConfiguration, dependencies: DeviceDependencies) -> DependentsFeature? {
        guard configuration.device.role.watches else { return nil }
        return DependentsFeature(
            store: dependencies.store.dependents, sources: dependencies.dependentSources, publish: dependencies.mqtt?.publish,
            clock: dependencies.clock, pollInterval: configuration.dependents.pollInterval,
            confirmationWindow: configuration.dependents.confirmationWindow)
    }

    static func dependentsState(_ configuration: DeviceConfiguration, endpoints: Endpoints) -> DependentsFeature.State? {
        guard configuration.device.role.watches else { return nil }
        return DependentsFeature.State(
            watcherName: configuration.device.name ?? endpoints.hostName,
            watcherID: configuration.mqtt.map { MQTTIdentity($0, derivedID: endpoints.mqttDeviceID).deviceID },
            configured: configuration.dependents.entries)
    }

    /// The dependents' share of the routing, and what a watcher asks of a person's device.
    func routeDependents(_ action: Action, _ state: inout State) -> Effect<Action> {
        if case .mqtt = action, let dependents = state.dependents, state.isBrokerConnected != dependents.brokerConnected {
            return .merge(.send(.dependents(.brokerConnection(!dependents.brokerConnected))), routeDependentsAction(action, &state))
        }
        return routeDependentsAction(action, &state)
    }

    private func routeDependentsAction(_ action: Action, _ state: inout State) -> Effect<Action> {
        switch action {
        case .started where state.dependents != nil:
            return .send(.dependents(.onAppear))
        case .stopping where state.dependents != nil:
            return .send(.dependents(.stop))
        case .dismissMessages where state.dependents?.error != nil:
            return .send(.dependents(.setError(nil)))
        case let .dependents(.delegate(.subscriptionsChanged(topics))) where state.mqtt != nil:
            return .send(.mqtt(.peerTopicsChanged(topics)))
        case let .mqtt(.delegate(.peerMessage(message))) where state.dependents != nil:
            return .send(.dependents(.peerMessage(message)))
        case let .checkIn(.delegate(.checkInStored(record))):
            state.helpComing = nil
            // A device that is both: the press that checks in also answers the glance, when it
            // showed someone needing someone.
            guard record.source == .button, state.dependents != nil else { return .none }
            return .send(.dependents(.answerThoseWhoNeedSomeone))
        case let .mqtt(.delegate(.onIt(name))):
            state.helpComing = HelpComing(name: name, at: dependencies.clock.now().wall)
            return .none
        case .mqtt(.delegate(.clearPing)):
            let local = state.checkIn.pendingPings.filter(\.isLocal).map(\.id)
            guard !local.isEmpty else { return .none }
            return .merge(
                .send(.checkIn(.pingsWithdrawn(local))),
                .run { [store = dependencies.store.checkIns] send in
                    do throws(StoreFailure) {
                        try await store.withdrawPings(local)
                        await send(.pingsWithdrawn(nil))
                    } catch {
                        await send(.pingsWithdrawn(error))
                    }
                })
        case let .pingsWithdrawn(failure?):
            // The LEDs no longer ask; a restart would ask again until the store writes.
            return .send(.store(.operationFailed(failure)))
        default:
            return .none
        }
    }

    /// The button on a watcher: its press is the glance's, not a check-in.
    func routeWatcherButton(_ kind: ButtonEvent.Kind) -> Effect<Action> {
        kind == .released ? .send(.dependents(.buttonPressed)) : .none
    }
}

/// A watcher said "I'm on it" (MQTT `on_it`): shown until the next check-in.
public struct HelpComing: Equatable, Sendable {
    public var name: String
    public var at: WallTime

    public init(name: String, at: WallTime) {
        self.name = name
        self.at = at
    }
}

extension DeviceFeature.State {
    /// Each dependent's own light (`[dependents.<key>] led`), by LED name: steady when they are
    /// checked in, a rhythm per status otherwise (docs/dependents.md); none on a person's device.
    public var dependentLights: [String: Waveform] {
        guard let dependents else { return [:] }
        var lights: [String: Waveform] = [:]
        for dependent in dependents.dependents {
            guard let led = dependent.entry.led else { continue }
            lights[led] = Self.light(for: dependent.status)
        }
        return lights
    }

    /// The rhythms the glance uses, on one light: loud ones fast, calm ones steady or winking.
    static func light(for status: DependentStatus) -> Waveform {
        switch status {
        case .helpAlert: .blink(on: .milliseconds(250), off: .milliseconds(250))
        case .overdue: .cycle([(true, .milliseconds(200)), (false, .milliseconds(200)), (true, .milliseconds(200)),
                               (false, .milliseconds(400))])
        case .silent: .blink(on: .milliseconds(100), off: .milliseconds(900))
        case .reminder: .cycle([(true, .milliseconds(200)), (false, .milliseconds(200)), (true, .milliseconds(200)),
                                (false, .milliseconds(2400))])
        case .unknown: .blink(on: .milliseconds(100), off: .milliseconds(2900))
        case .away: .cycle([(true, .milliseconds(100)), (false, .milliseconds(200)), (true, .milliseconds(100)),
                            (false, .milliseconds(2600))])
        case .checkedIn: .on
        }
    }

    /// The glance: the loudest status across the dependents, or the confirmation of a press.
    func glance(_ dependents: DependentsFeature.State) -> Indicator {
        if dependents.confirmingPingAll { return .pingConfirm }
        switch dependents.loudest {
        case nil: return .neverCheckedIn
        case .helpAlert: return .dependentHelpAlert
        case .overdue: return .dependentOverdue
        case .silent: return .dependentSilent
        case .reminder: return .dependentReminder
        case .unknown: return .dependentsUnknown
        case .away, .checkedIn: return .dependentsOK
        }
    }

    /// What the LEDs show for this role: a person's indicator; a watcher's glance (a fault
    /// first); on a device that is both, whichever asks more of the person beside it.
    func roleIndicator(own: Indicator) -> Indicator {
        guard let dependents else { return own }
        if role == .watcher {
            if own == .fault || own == .identify { return own }
            return glance(dependents)
        }
        let glance = glance(dependents)
        if own.urgency == .calm, glance.urgency == .urgent || glance.urgency == .attention { return glance }
        return own
    }

    /// Someone is coming: shown instead of the overdue or alert indicators it answers.
    func withHelpComing(_ indicator: Indicator) -> Indicator {
        guard helpComing != nil else { return indicator }
        switch indicator {
        case .overdue, .lastChance, .alertSending, .alertDelivered: return .helpComing
        default: return indicator
        }
    }
}

extension ActionCase where Parent == DeviceFeature.Action, Child == DependentsFeature.Action {
    static let dependents = ActionCase(embed: Parent.dependents, extract: { if case let .dependents(action) = $0 { action } else { nil } })
}
