import Backoff
import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import DeviceConfig
import MQTTFeature
import MQTTClient

/// The device on the MQTT broker (docs/mqtt.md): what happens on the device becomes events, the
/// broker's commands become the device's actions, and the state the broker holds follows the
/// device's own.
extension DeviceFeature {
    static func mqttFeature(configuration: DeviceConfiguration, dependencies: DeviceDependencies) -> MQTTFeature? {
        guard let settings = configuration.mqtt, let client = dependencies.mqtt else { return nil }
        return MQTTFeature(
            identity: MQTTIdentity(settings, derivedID: client.deviceID), client: client, store: dependencies.store.deviceEvents,
            queue: dependencies.store.deviceEventQueue, clock: dependencies.clock, backoff: .network(cap: settings.retryMax),
            random: dependencies.random, newID: dependencies.newID)
    }

    static func mqttState(_ configuration: DeviceConfiguration, endpoints: Endpoints) -> MQTTFeature.State? {
        guard let settings = configuration.mqtt else { return nil }
        return MQTTFeature.State(identity: MQTTIdentity(settings, derivedID: endpoints.mqttDeviceID), broker: endpoints.mqttBroker,
                                 isOnlyWayToReachAnyone: configuration.uplink == nil && configuration.healthchecks == nil)
    }

    /// MQTT's share of the routing: events, commands, and the state the broker should hold.
    func routeMQTT(_ action: Action, _ state: inout State) -> Effect<Action> {
        guard state.mqtt != nil else { return .none }
        var effects = mqttEvents(for: action).map { Effect<Action>.send(.mqtt(.eventOccurred($0))) }
        switch action {
        case .mqtt(.delegate(.askIfOK)):
            effects.append(askIfOK(state))
        case .mqtt(.delegate(.identify)):
            effects.append(.send(.checkIn(.identifyRequested)))
        case .mqtt(.delegate(.checkIn)):
            effects.append(.send(.checkIn(.checkInRequested(.mqtt))))
        case let .mqtt(.delegate(.away(duration))):
            effects.append(.send(.checkIn(.away(.requested(.lasting(duration), .mqtt)))))
        case .mqtt(.delegate(.awayEnd)):
            effects.append(.send(.checkIn(.away(.endRequested(.mqtt)))))
        case let .mqtt(.delegate(.eventNotStored(failure))):
            effects.append(.send(.store(.operationFailed(failure))))
        case let .localPingStored(ping, .success(pending)):
            effects.append(.send(.checkIn(.pingsReceived(pending.contains(ping) ? pending : pending + [ping]))))
        case let .localPingStored(ping, .failure(failure)):
            // Asked all the same: the LEDs ask now; the question is lost only with a restart.
            effects += [.send(.checkIn(.pingsReceived([ping]))), .send(.store(.operationFailed(failure)))]
        case .networkChanged:
            effects.append(.send(.mqtt(.networkChanged)))
        default:
            break
        }
        // Told within this action, not as one more: the broker's copy never lags a step behind.
        let device = MQTTDeviceState(state)
        if device != state.mqtt?.device {
            effects.append(ScopeIfPresent(state: \.mqtt, action: .mqtt, namespace: Namespace.mqtt, child: mqtt)
                .reduce(into: &state, action: .mqtt(.deviceChanged(device))))
        }
        return .merge(effects)
    }

    /// What `action` tells the home's automations.
    private func mqttEvents(for action: Action) -> [MQTTDeviceEvent] {
        switch action {
        case let .checkIn(.delegate(delegate)):
            switch delegate {
            case let .checkInStored(record): return [.checkIn(record)]
            case let .pingsAnswered(responses): return [.pingsAnswered(count: responses.count, at: responses.first?.at ?? now)]
            case .longPressed: return [.longPress(at: now)]
            case let .alertCancelled(source): return [.alertCancelled(source: source.rawValue, at: now)]
            case let .alertStored(record): return [.alertSent(record)]
            default: return []
            }
        case let .alertUpload(.delegate(.acknowledged(ids))):
            return ids.map { .alertDelivered(id: $0, at: now) }
        case let .power(.delegate(.eventStored(event))):
            return [.power(event)]
        default:
            return []
        }
    }

    private var now: WallTime { dependencies.clock.now().wall }

    /// `ask_if_ok`: a ping raised on the device, stored like a responder's so a restart still
    /// shows it; one at a time (asking again while it waits changes nothing).
    private func askIfOK(_ state: State) -> Effect<Action> {
        guard !state.checkIn.pendingPings.contains(where: \.isLocal) else { return .none }
        let ping = PendingPing(id: PendingPing.localIDPrefix + dependencies.newID().description, responderID: "home-assistant",
                               responderName: "Home Assistant", createdAt: now.iso8601)
        return .run { [store = dependencies.store.checkIns] send in
            await send(.localPingStored(ping, await Result { () async throws(StoreFailure) in try await store.savePings([ping]) }))
        }
    }
}

extension MQTTDeviceState {
    /// What the broker should hold about the device now (its brief feedback left out).
    init(_ state: DeviceFeature.State) {
        var steady = state.checkIn
        steady.feedback = nil
        let alert = state.checkIn.alert
        let fault = state.hasFault
        self.init(
            indicator: state.indicator(of: steady),
            phase: state.checkIn.phase.name,
            lastCheckIn: state.checkIn.lastCheckIn?.at.wall,
            lastCheckInSource: state.checkIn.lastCheckIn?.source,
            nextDeadline: state.checkIn.phase.countdown?.deadline,
            helpAlert: alert.isStoring || alert.unsaved != nil || !alert.unacknowledged.isEmpty || alert.delivered != nil,
            pingPending: !state.checkIn.pendingPings.isEmpty,
            fault: fault,
            conditions: state.conditions.map(\.kind).filter { $0 != .mqttUnavailable }.map(\.rawValue),
            oldestNotUploaded: state.checkIn.uploadBacklog.oldestPendingSince?.wall,
            awayUntil: state.checkIn.away.running?.until,
            onBattery: state.power.onBattery,
            onIt: state.helpComing?.name)
    }
}

extension DeviceFeature.State {
    /// The MQTT broker is away: a condition, and a fault only where it is the only way to reach anyone.
    var mqttCondition: DeviceCondition? {
        guard let mqtt, mqtt.isUnavailable, let failure = mqtt.lastFailure else { return nil }
        let advice = switch failure.kind {
        case .refused: "check [mqtt] username and password_file against the broker's users (lifesignalctl doctor tries them)"
        case .tls: "check [mqtt] tls and ca_file against the broker's certificate (lifesignalctl doctor tries them)"
        default: "check that the broker runs and that [mqtt] host and port name it (lifesignalctl doctor); the device reconnects by itself"
        }
        let nobodyElse = mqtt.outageIsFault ? "; nothing else reaches anyone from this device" : ""
        return DeviceCondition(.mqttUnavailable, "MQTT broker \(mqtt.broker) unavailable: \(failure.message)\(nobodyElse)",
                               advice: advice, isFault: mqtt.outageIsFault, since: mqtt.unavailableSince)
    }
}

extension ActionCase where Parent == DeviceFeature.Action, Child == MQTTFeature.Action {
    static let mqtt = ActionCase(embed: Parent.mqtt, extract: { if case let .mqtt(action) = $0 { action } else { nil } })
}
