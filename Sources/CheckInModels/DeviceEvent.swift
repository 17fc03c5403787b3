/// Something that happened on the device, for the home's automations (a check-in, a help alert,
/// turning overdue …): stored durably when it happens and published once, in order, when the
/// MQTT broker is there (`<base>/event/<entity>`, QoS 1, not retained).
public struct DeviceEvent: Hashable, Sendable, Identifiable {
    /// A random UUID: consumers can drop a duplicate an MQTT reconnect may deliver.
    public var id: CheckInID
    /// The event entity it belongs to (`check_in`, `help_alert`): the last level of its topic.
    public var entity: String
    /// The JSON published, `event_type` first.
    public var payload: String
    public var at: WallTime

    public init(id: CheckInID, entity: String, payload: String, at: WallTime) {
        self.id = id
        self.entity = entity
        self.payload = payload
        self.at = at
    }
}
