import CheckInModels

/// Home Assistant's device-based MQTT discovery: one retained message on
/// `<prefix>/device/<device id>/config` describing the device (`dev`), who made the message (`o`)
/// and every entity (`cmps`). Home Assistant rejects the whole device without `o`, or with a
/// component lacking `p` or `unique_id`; an entity without `name` would be called "MQTT Sensor".
/// Availability is set once for the device: `offline` makes every entity unavailable.
public enum MQTTDiscovery {
    /// The entities, keyed as in `cmps`, in the order they appear.
    public enum Component: String, CaseIterable, Sendable {
        case indicator
        case lastCheckIn = "last_check_in"
        case nextDeadline = "next_deadline"
        case overdue
        case helpAlert = "help_alert"
        case fault
        case pingPending = "ping_pending"
        case oldestNotUploaded = "oldest_not_uploaded"
        case connection
        case checkInEvent = "check_in_event"
        case helpAlertEvent = "help_alert_event"
        case away
        case onBattery = "on_battery"
        case powerEvent = "power_event"
        case awayFor = "away_for"
        case awayEnd = "away_end"
        case askIfOK = "ask_if_ok"
        case identify
        case checkIn = "check_in"
    }

    /// The event entities' event types (Home Assistant ignores an event whose type is not listed).
    public static let checkInEventTypes = ["check_in", "overdue", "ping_answered"]
    public static let helpAlertEventTypes = ["long_press", "alert_sent", "alert_cancelled", "alert_delivered"]
    public static let powerEventTypes = PowerEventKind.allCases.map(\.rawValue)

    /// The discovery message's JSON.
    public static func payload(_ identity: MQTTIdentity) -> JSONValue {
        let components = Component.allCases.map { component in
            (component.rawValue, config(component, identity))
        }
        return .object([
            ("dev", .object([
                ("identifiers", .array([.string("lifesignal_\(identity.deviceID)")])),
                ("name", .string(identity.deviceName)),
                ("manufacturer", .string("LifeSignal")),
                ("model", .string("LifeSignal Device")),
                ("serial_number", .string(identity.deviceID)),
            ])),
            ("o", .object([("name", .string("lifesignald"))])),
            ("availability_topic", .string(identity.availabilityTopic)),
            ("payload_available", .string(MQTTIdentity.online)),
            ("payload_not_available", .string(MQTTIdentity.offline)),
            ("qos", .int(1)),
            ("cmps", .object(components)),
        ])
    }

    private static func config(_ component: Component, _ identity: MQTTIdentity) -> JSONValue {
        let uniqueID: (String, JSONValue) = ("unique_id", .string("lifesignal_\(identity.deviceID)_\(component.rawValue)"))
        let state: (String, JSONValue) = ("state_topic", .string(identity.stateTopic))
        let diagnostic: (String, JSONValue) = ("entity_category", .string("diagnostic"))
        func value(_ field: String) -> (String, JSONValue) { ("value_template", .string("{{ value_json.\(field) }}")) }
        func flag(_ field: String) -> [(String, JSONValue)] {
            [("value_template", .string("{{ 'ON' if value_json.\(field) else 'OFF' }}")),
             ("payload_on", .string("ON")), ("payload_off", .string("OFF"))]
        }
        func button(_ command: MQTTCommand) -> [(String, JSONValue)] {
            [("command_topic", .string(identity.commandTopic(command))), ("payload_press", .string(MQTTCommand.press))]
        }
        switch component {
        case .indicator:
            return .object([("p", .string("sensor")), uniqueID, ("name", .string("Indicator")), state, value("indicator"),
                            ("device_class", .string("enum")),
                            ("options", .array(MQTTDeviceState.indicatorOptions.map { .string($0.rawValue) })),
                            ("icon", .string("mdi:led-on"))])
        case .lastCheckIn:
            return .object([("p", .string("sensor")), uniqueID, ("name", .string("Last check-in")), state, value("last_check_in"),
                            ("device_class", .string("timestamp")),
                            ("json_attributes_topic", .string(identity.stateTopic)),
                            ("json_attributes_template", .string("{{ {'source': value_json.last_check_in_source} | tojson }}"))])
        case .nextDeadline:
            return .object([("p", .string("sensor")), uniqueID, ("name", .string("Next deadline")), state, value("next_deadline"),
                            ("device_class", .string("timestamp"))])
        case .overdue:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("Overdue")), state,
                            ("device_class", .string("safety"))] + flag("overdue"))
        case .helpAlert:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("Help alert")), state,
                            ("device_class", .string("safety"))] + flag("help_alert"))
        case .fault:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("Fault")), state,
                            ("device_class", .string("problem")),
                            ("json_attributes_topic", .string(identity.stateTopic)),
                            ("json_attributes_template", .string("{{ {'conditions': value_json.conditions} | tojson }}"))]
                           + flag("fault"))
        case .pingPending:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("Ping pending")), state, diagnostic,
                            ("icon", .string("mdi:account-question"))] + flag("ping_pending"))
        case .oldestNotUploaded:
            return .object([("p", .string("sensor")), uniqueID, ("name", .string("Oldest check-in not uploaded")), state,
                            value("oldest_not_uploaded"), ("device_class", .string("timestamp")), diagnostic])
        case .connection:
            // The availability topic itself: the broker sets it to offline (the last will) when
            // the device drops off.
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("MQTT connection")),
                            ("state_topic", .string(identity.availabilityTopic)), ("device_class", .string("connectivity")),
                            ("payload_on", .string(MQTTIdentity.online)), ("payload_off", .string(MQTTIdentity.offline)),
                            diagnostic])
        case .checkInEvent:
            return .object([("p", .string("event")), uniqueID, ("name", .string("Check-in")),
                            ("state_topic", .string(identity.eventTopic("check_in"))),
                            ("event_types", .array(checkInEventTypes.map { .string($0) }))])
        case .helpAlertEvent:
            return .object([("p", .string("event")), uniqueID, ("name", .string("Help alert event")),
                            ("state_topic", .string(identity.eventTopic("help_alert"))),
                            ("event_types", .array(helpAlertEventTypes.map { .string($0) }))])
        case .away:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("Away")), state,
                            ("icon", .string("mdi:home-export-outline")),
                            ("json_attributes_topic", .string(identity.stateTopic)),
                            ("json_attributes_template", .string("{{ {'until': value_json.away_until} | tojson }}"))]
                           + flag("away"))
        case .onBattery:
            return .object([("p", .string("binary_sensor")), uniqueID, ("name", .string("On battery")), state,
                            ("icon", .string("mdi:power-plug-off"))] + flag("on_battery"))
        case .powerEvent:
            return .object([("p", .string("event")), uniqueID, ("name", .string("Power")),
                            ("state_topic", .string(identity.eventTopic("power"))),
                            ("event_types", .array(powerEventTypes.map { .string($0) }))])
        case .awayFor:
            // Like check_in: without remote away the entity is removed (`p` alone).
            guard identity.remoteAway else { return .object([("p", .string("text"))]) }
            return .object([("p", .string("text")), uniqueID, ("name", .string("Away for")),
                            ("command_topic", .string(identity.commandTopic(.away))), ("max", .int(16)),
                            ("icon", .string("mdi:home-export-outline"))])
        case .awayEnd:
            return .object([("p", .string("button")), uniqueID, ("name", .string("End away")),
                            ("icon", .string("mdi:home-import-outline"))] + button(.awayEnd))
        case .askIfOK:
            return .object([("p", .string("button")), uniqueID, ("name", .string("Ask if OK")),
                            ("icon", .string("mdi:account-question"))] + button(.askIfOK))
        case .identify:
            return .object([("p", .string("button")), uniqueID, ("name", .string("Identify")),
                            ("device_class", .string("identify")), diagnostic] + button(.identify))
        case .checkIn:
            // Without remote check-in the button is removed, should an earlier config have had it:
            // a component given as `p` alone is deleted; left out, it would stay.
            guard identity.remoteCheckIn else { return .object([("p", .string("button"))]) }
            return .object([("p", .string("button")), uniqueID, ("name", .string("Check in")),
                            ("icon", .string("mdi:check-circle"))] + button(.checkIn))
        }
    }
}
