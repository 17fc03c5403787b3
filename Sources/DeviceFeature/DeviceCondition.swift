public import CheckInModels

/// Something that stops the device keeping its word, with its own cause and its own clearing rule.
///
/// Conditions are derived from the features' state (a store problem, a GPIO chip being waited for,
/// an alert not stored …), so a condition holds exactly as long as its cause: no later error,
/// dismissal or unrelated action can erase it. Faults make the LEDs show `fault`; the others are
/// listed in `status` without changing the LEDs.
public struct DeviceCondition: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        case storeCannotWrite = "store_cannot_write"
        case storeFileMoved = "store_file_moved"
        case storeSchemaRefused = "store_schema_refused"
        case storeCannotOpen = "store_cannot_open"
        case gpioUnavailable = "gpio_unavailable"
        case timeUnknown = "time_unknown"
        case alertNotStored = "alert_not_stored"
        case alertNotSent = "alert_not_sent"
        /// A delivery target refuses uploads for good (a wrong token, a removed check).
        case uploadRefused = "upload_refused"
        /// A heartbeat target refuses the beats for good (a wrong URL, a removed check).
        case heartbeatRefused = "heartbeat_refused"
        /// The device's own healthchecks checks cannot be set up or kept in step (a wrong or
        /// read-only API key, the project's check limit).
        case checksNotInStep = "checks_not_in_step"
        /// The MQTT broker cannot be reached or refuses the device (a fault only when nothing else
        /// reaches anyone).
        case mqttUnavailable = "mqtt_unavailable"
    }

    public var kind: Kind
    /// What is wrong, naming the thing at fault.
    public var message: String
    /// What a person can do about it.
    public var advice: String
    /// The LEDs show `fault` while it holds.
    public var isFault: Bool
    /// Since when it holds, where that is known.
    public var since: WallTime?

    public init(_ kind: Kind, _ message: String, advice: String, isFault: Bool = true, since: WallTime? = nil) {
        self.kind = kind
        self.message = message
        self.advice = advice
        self.isFault = isFault
        self.since = since
    }
}

/// A message for the operator that does not stop the device keeping its word (a refused setting,
/// a damaged store moved aside): shown in `status` until dismissed (`lifesignalctl dismiss-error`).
public struct DeviceMessage: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case settingsRejected = "settings_rejected"
        case storedSettingsRefused = "stored_settings_refused"
        case storeReplaced = "store_replaced"
        case storeRecovered = "store_recovered"
    }

    public var kind: Kind
    public var text: String
    public var at: WallTime

    public init(_ kind: Kind, _ text: String, at: WallTime) {
        self.kind = kind
        self.text = text
        self.at = at
    }
}
