import CheckInModels
import ComposableCore
import DeviceConfig
import MQTTClient
import MQTTFeature
public import RespondersFeature

/// The person's responders (docs/responders.md): who will be told, from watchers that paired over
/// the device's MQTT connection and the polled sources; the watchers removed stay refused by MQTT.
extension DeviceFeature {
    static func respondersFeature(configuration: DeviceConfiguration, dependencies: DeviceDependencies) -> RespondersFeature? {
        guard configuration.device.role.hasCountdown else { return nil }
        let baseTopic = configuration.mqtt.flatMap { settings in
            dependencies.mqtt.map { MQTTIdentity(settings, derivedID: $0.deviceID).baseTopic }
        }
        return RespondersFeature(store: dependencies.store.responders, sources: dependencies.responderSources,
                                 publish: dependencies.mqtt?.publish, baseTopic: baseTopic, clock: dependencies.clock)
    }

    static func respondersState(_ configuration: DeviceConfiguration, endpoints: Endpoints) -> RespondersFeature.State? {
        guard configuration.device.role.hasCountdown else { return nil }
        var unlisted: Set<ResponderTopic> = []
        if let healthchecks = configuration.healthchecks, healthchecks.management == nil {
            if healthchecks.hasCheckInCheck { unlisted.insert(.missedCheckIn) }
            if healthchecks.hasAlertCheck { unlisted.insert(.helpAlert) }
        }
        let paths = ResponderPaths(
            mqttBroker: configuration.mqtt.map { _ in endpoints.mqttBroker },
            backend: configuration.uplink.map { _ in endpoints.backend },
            healthchecks: configuration.healthchecks?.management.map { _ in endpoints.healthchecksSite },
            unlistedHealthchecks: unlisted, helpAlerts: configuration.alert.enabled)
        return RespondersFeature.State(paths: paths)
    }

    /// The responders' share of the routing.
    func routeResponders(_ action: Action, _ state: inout State) -> Effect<Action> {
        guard let responders = state.responders else { return .none }
        switch action {
        case .started:
            return .send(.responders(.onAppear))
        case .stopping:
            return .send(.responders(.stop))
        case .dismissMessages where responders.error != nil:
            return .send(.responders(.setError(nil)))
        case let .mqtt(.delegate(.watcherMessage(message))):
            return .send(.responders(.watcherMessage(message)))
        case let .responders(.delegate(.refusedWatchersChanged(ids))) where state.mqtt != nil:
            return .send(.mqtt(.refusedWatchersChanged(ids)))
        case .mqtt:
            let connected = state.isBrokerConnected
            return connected == responders.brokerConnected ? .none : .send(.responders(.brokerConnection(connected)))
        default:
            return .none
        }
    }
}

extension ActionCase where Parent == DeviceFeature.Action, Child == RespondersFeature.Action {
    static let responders = ActionCase(embed: Parent.responders, extract: { if case let .responders(action) = $0 { action } else { nil } })
}
