import MQTTClient
public import DeviceConfig

/// Who the device is on the broker and where its topics are (docs/mqtt.md).
public struct MQTTIdentity: Hashable, Sendable {
    /// Letters, digits, '-', '_', '.': in the discovery topic and every unique id.
    public var deviceID: String
    /// The device's name in Home Assistant.
    public var deviceName: String
    /// Home Assistant's discovery prefix ("homeassistant").
    public var discoveryPrefix: String
    /// Where the device's own topics live ("lifesignal/<device id>").
    public var baseTopic: String
    /// `<base>/cmd/check_in` checks in.
    public var remoteCheckIn: Bool
    /// `<base>/cmd/away` sets away mode.
    public var remoteAway: Bool

    public init(deviceID: String, deviceName: String, discoveryPrefix: String, baseTopic: String, remoteCheckIn: Bool,
                remoteAway: Bool = false) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.discoveryPrefix = discoveryPrefix
        self.baseTopic = baseTopic
        self.remoteCheckIn = remoteCheckIn
        self.remoteAway = remoteAway
    }

    /// `[mqtt]` with the device's id: the configured one, else `derivedID` (from the machine's id).
    public init(_ settings: MQTTConfiguration, derivedID: String) {
        let id = settings.deviceID ?? derivedID
        self.init(deviceID: id, deviceName: settings.deviceName, discoveryPrefix: settings.discoveryPrefix,
                  baseTopic: settings.baseTopic ?? "lifesignal/\(id)", remoteCheckIn: settings.remoteCheckIn,
                  remoteAway: settings.remoteAway)
    }

    /// `online` / `offline`, retained; `offline` is also the last will.
    public var availabilityTopic: String { baseTopic + "/availability" }
    /// The device's state as JSON, retained.
    public var stateTopic: String { baseTopic + "/state" }
    /// Events of one event entity (`check_in`, `help_alert`), QoS 1, not retained.
    public func eventTopic(_ entity: String) -> String { baseTopic + "/event/" + entity }
    /// One command (`ask_if_ok`, `identify`, `check_in`).
    public func commandTopic(_ command: MQTTCommand) -> String { baseTopic + "/cmd/" + command.rawValue }
    /// Every command: the filter the device subscribes to.
    public var commandFilter: String { baseTopic + "/cmd/+" }
    /// Watcher devices' registrations (`<base>/watchers/<id>`): who paired with this device.
    public var watchersFilter: String { WatcherWire.registrationFilter(base: baseTopic) }
    /// Device-based discovery (one message for the device and all its entities), retained.
    public var discoveryTopic: String { discoveryPrefix + "/device/" + deviceID + "/config" }
    /// Home Assistant says `online` here when it (re)starts: discovery is sent again.
    public var homeAssistantStatusTopic: String { discoveryPrefix + "/status" }

    public static let online = "online"
    public static let offline = "offline"
}

/// What Home Assistant (or any automation) can ask of the device on `<base>/cmd/<name>`.
public enum MQTTCommand: String, Hashable, Sendable, CaseIterable {
    /// Raises a ping on the device ("are you OK?"): the LEDs ask, a press answers.
    case askIfOK = "ask_if_ok"
    /// Blinks the LEDs so the device can be found.
    case identify
    /// Checks in (only with `[mqtt] remote_check_in = true`; recorded with source `mqtt`).
    case checkIn = "check_in"
    /// Away mode for the duration in the payload (`3d`, `12h`; only with `[mqtt] remote_away = true`).
    case away
    /// Ends away mode now: a fresh countdown starts.
    case awayEnd = "away_end"
    /// A watcher withdraws its `ask_if_ok`: the ping raised on the device is no longer pending.
    case clearPing = "clear_ping"
    /// A watcher is on the way: the payload is the watcher's name (docs/dependents.md).
    case onIt = "on_it"

    /// What Home Assistant's button publishes (`payload_press`); an empty payload works too.
    public static let press = "PRESS"
}
