import CheckInModels
import ConfigFile

/// `[mqtt]`: an MQTT broker the device publishes its state and events to, with Home Assistant
/// discovery, and takes commands from (docs/home-assistant.md, docs/mqtt.md). No `host` = none.
public struct MQTTConfiguration: Hashable, Sendable {
    public enum TLS: Hashable, Sendable {
        /// Plain TCP (a broker on the home's own network, such as Home Assistant's add-on).
        case off
        /// TLS, the broker's certificate checked against the system's CA store.
        case systemCertificates
        /// TLS, the broker's certificate checked against the CA certificates in this PEM file only.
        case caFile(String)
    }

    /// The broker's host name or address (no scheme, no port).
    public var host: String
    /// 1…65535; default 1883, or 8883 with TLS.
    public var port: Int
    public var tls: TLS
    public var username: String?
    /// The file holding the broker password (mode rules as for the uplink token); needs `username`.
    public var passwordFile: String?
    /// The MQTT client id; nil = `lifesignal-<device id>`.
    public var clientID: String?
    /// How often the connection is checked when nothing else is sent (whole seconds, 5s…1h).
    public var keepAlive: Duration
    /// Home Assistant's discovery prefix.
    public var discoveryPrefix: String
    /// Where the device's own topics live; nil = `lifesignal/<device id>`.
    public var baseTopic: String?
    /// The device's id in topics and Home Assistant's unique ids; nil = derived from the machine id.
    public var deviceID: String?
    /// The device's name in Home Assistant (entities are named after it).
    public var deviceName: String
    /// Whether `<base>/cmd/check_in` checks in (recorded with source `mqtt`).
    public var remoteCheckIn: Bool
    /// Whether `<base>/cmd/away` sets away mode (it silences reminders and overdue, so it is off by default).
    public var remoteAway: Bool
    /// The longest wait between reconnection attempts (1s…1h).
    public var retryMax: Duration

    public init(host: String, port: Int? = nil, tls: TLS = .off, username: String? = nil, passwordFile: String? = nil,
                clientID: String? = nil, keepAlive: Duration = .seconds(60), discoveryPrefix: String = "homeassistant",
                baseTopic: String? = nil, deviceID: String? = nil, deviceName: String = "LifeSignal",
                remoteCheckIn: Bool = false, remoteAway: Bool = false, retryMax: Duration = .seconds(300)) {
        self.host = host
        self.port = port ?? (tls == .off ? 1883 : 8883)
        self.tls = tls
        self.username = username
        self.passwordFile = passwordFile
        self.clientID = clientID
        self.keepAlive = keepAlive
        self.discoveryPrefix = discoveryPrefix
        self.baseTopic = baseTopic
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.remoteCheckIn = remoteCheckIn
        self.remoteAway = remoteAway
        self.retryMax = retryMax
    }

    static let keepAliveRange = Duration.seconds(5) ... .seconds(3600)
    static let retryMaxRange = Duration.seconds(1) ... .seconds(3600)
}

extension ConfigLoader {
    /// `[mqtt]`: nil when the table is absent (other keys without a host are an error).
    mutating func readMQTT(_ table: ConfigTable?) -> MQTTConfiguration? {
        guard let table else { return nil }
        let host = optionalValue(table, "mqtt", "host", ValueRules.brokerHost)
        let port = optionalValue(table, "mqtt", "port", ValueRules.integer(in: 1...65535))
        let tlsOn = optionalValue(table, "mqtt", "tls", ValueRules.bool)
        let caFile = optionalValue(table, "mqtt", "ca_file", ValueRules.absolutePath("the CA certificate file (PEM)"))
        let username = optionalValue(table, "mqtt", "username", ValueRules.text("the broker user name"))
        let passwordFile = optionalValue(table, "mqtt", "password_file", ValueRules.absolutePath("the broker password file"))
        let clientID = optionalValue(table, "mqtt", "client_id", ValueRules.identifier("an MQTT client id"))
        let keepAlive = value(table, "mqtt", "keep_alive", .seconds(60), ValueRules.wholeSeconds(in: MQTTConfiguration.keepAliveRange))
        let discoveryPrefix = value(table, "mqtt", "discovery_prefix", "homeassistant",
                                    ValueRules.topic("Home Assistant's discovery prefix", example: "homeassistant"))
        let baseTopic = optionalValue(table, "mqtt", "base_topic", ValueRules.topic("the device's base topic", example: "lifesignal/hall"))
        let deviceID = optionalValue(table, "mqtt", "device_id", ValueRules.identifier("a device id"))
        let deviceName = value(table, "mqtt", "device_name", "LifeSignal", ValueRules.text("the device's name in Home Assistant"))
        let remoteCheckIn = value(table, "mqtt", "remote_check_in", false, ValueRules.bool)
        let remoteAway = value(table, "mqtt", "remote_away", false, ValueRules.bool)
        let retryMax = value(table, "mqtt", "retry_max", .seconds(300), ValueRules.duration(in: MQTTConfiguration.retryMaxRange))

        guard table["host"] != nil else {
            if let first = table.entries.first {
                report("mqtt.host", atEntry: first, "[mqtt] needs host = \"…\" (the broker, e.g. \"homeassistant.local\"); "
                       + "remove the [mqtt] table to use no MQTT broker")
            }
            return nil
        }
        if tlsOn == false, let entry = table["ca_file"] {
            report("mqtt.ca_file", atEntry: entry, "ca_file is the CA for a TLS connection, but tls = false; "
                   + "set tls = true, or remove ca_file")
            return nil
        }
        if passwordFile != nil, table["username"] == nil, let entry = table["password_file"] {
            report("mqtt.password_file", atEntry: entry, "a password needs a user: add username = \"…\" to [mqtt]")
            return nil
        }
        if deviceName.utf8.count > 64, let entry = table["device_name"] {
            report("mqtt.device_name", atEntry: entry, "the name is \(deviceName.utf8.count) bytes long; at most 64")
            return nil
        }
        guard let host, table["port"] == nil || port != nil, table["username"] == nil || username != nil,
              table["password_file"] == nil || passwordFile != nil, table["ca_file"] == nil || caFile != nil,
              table["tls"] == nil || tlsOn != nil, table["client_id"] == nil || clientID != nil,
              table["base_topic"] == nil || baseTopic != nil, table["device_id"] == nil || deviceID != nil else { return nil }
        let tls: MQTTConfiguration.TLS = caFile.map { .caFile($0) } ?? (tlsOn == true ? .systemCertificates : .off)
        return MQTTConfiguration(host: host, port: port, tls: tls, username: username, passwordFile: passwordFile,
                                 clientID: clientID, keepAlive: keepAlive, discoveryPrefix: discoveryPrefix, baseTopic: baseTopic,
                                 deviceID: deviceID, deviceName: deviceName, remoteCheckIn: remoteCheckIn,
                                 remoteAway: remoteAway, retryMax: retryMax)
    }
}

extension ValueRules {
    /// A host name or address, without scheme, port or path.
    static func brokerHost(_ value: ConfigValue) -> Result<String, Refusal> {
        text("the broker's host name or address, e.g. \"homeassistant.local\"")(value).flatMap { host in
            if host.includes("://") {
                return .failure(Refusal("\(TerminalText.quoted(host)) has a scheme; give the host alone, e.g. \"homeassistant.local\" "
                                        + "(tls = true chooses MQTT over TLS)"))
            }
            guard !host.contains(where: { " /@?#".contains($0) }), host.utf8.count <= 253 else {
                return .failure(Refusal("\(TerminalText.quoted(host)) is not a host name or address; "
                                        + "expected e.g. \"homeassistant.local\" or \"192.168.1.10\" (the port goes in port)"))
            }
            return .success(host)
        }
    }

    /// An MQTT topic of the device's: no wildcards, no empty levels, no leading or trailing '/'.
    static func topic(_ what: String, example: String) -> Rule<String> {
        { value in
            text("\(what), e.g. \"\(example)\"")(value).flatMap { topic in
                let shown = TerminalText.quoted(topic)
                if topic.contains("+") || topic.contains("#") {
                    return .failure(Refusal("\(shown) contains a wildcard (+ or #), which a topic to publish to cannot have"))
                }
                if topic.hasPrefix("/") || topic.hasSuffix("/") || topic.includes("//") {
                    return .failure(Refusal("\(shown) has an empty level (a leading, trailing or double '/'); expected e.g. \"\(example)\""))
                }
                if topic.hasPrefix("$") {
                    return .failure(Refusal("\(shown) starts with '$', which brokers keep for themselves"))
                }
                guard topic.utf8.count <= 200 else {
                    return .failure(Refusal("the topic is \(topic.utf8.count) bytes long; at most 200"))
                }
                return .success(topic)
            }
        }
    }

    /// Letters, digits, '-', '_' and '.', 1 to 64 of them: safe in topics, client ids and Home
    /// Assistant's unique ids.
    static func identifier(_ what: String) -> Rule<String> {
        { value in
            text(what)(value).flatMap { name in
                let allowed = name.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
                }
                guard allowed, name.utf8.count <= 64 else {
                    return .failure(Refusal("\(TerminalText.quoted(name)) is not allowed; expected \(what) of 1 to 64 letters, "
                                            + "digits, '-', '_' or '.'"))
                }
                return .success(name)
            }
        }
    }

    /// A duration in whole seconds within `range` (what MQTT's keep-alive counts in).
    static func wholeSeconds(in range: ClosedRange<Duration>) -> Rule<Duration> {
        { value in
            duration(in: range)(value).flatMap { duration in
                guard duration.components.attoseconds == 0 else {
                    return .failure(Refusal("\(TerminalText.quoted(value.stringValue ?? "")) is not a whole number of seconds; "
                                            + "MQTT counts the keep-alive in seconds"))
                }
                return .success(duration)
            }
        }
    }
}
