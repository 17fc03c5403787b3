public import CheckInModels

/// The ways this device's configuration can tell anyone, as far as they decide who is told.
public struct ResponderPaths: Equatable, Sendable {
    /// `[mqtt]`: watcher devices paired over this broker hear the person's state.
    public var mqttBroker: String?
    /// `[uplink]`: the backend's responders are listed from there.
    public var backend: String?
    /// `[healthchecks] api_key_file`: the checks' integrations are listed from there.
    public var healthchecks: String?
    /// A healthchecks check the device pings but cannot list the integrations of (a `check_in_url`
    /// or `alert_url` without `api_key_file`): what it tells of.
    public var unlistedHealthchecks: Set<ResponderTopic>
    /// `[alert] enabled`: a long press is a help alert at all.
    public var helpAlerts: Bool

    public init(mqttBroker: String? = nil, backend: String? = nil, healthchecks: String? = nil,
                unlistedHealthchecks: Set<ResponderTopic> = [], helpAlerts: Bool = true) {
        self.mqttBroker = mqttBroker
        self.backend = backend
        self.healthchecks = healthchecks
        self.unlistedHealthchecks = unlistedHealthchecks
        self.helpAlerts = helpAlerts
    }

    /// The polled sources configured: `backend`, `healthchecks`.
    public var polledKinds: [String] {
        [backend.map { _ in "backend" }, healthchecks.map { _ in "healthchecks" }].compactMap { $0 }
    }
}
