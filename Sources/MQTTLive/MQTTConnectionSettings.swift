public import DeviceConfig
public import LinuxIO

/// Where and how to reach the broker: `[mqtt]` as the connection takes it, the password read.
public struct MQTTConnectionSettings: Sendable {
    /// Off, the system's CA store, or a CA file: as `[mqtt]` says.
    public typealias TLS = MQTTConfiguration.TLS

    public var host: String
    public var port: Int
    public var tls: TLS
    public var username: String?
    /// Never shown: `description` leaves it out.
    public var password: String?
    public var clientID: String
    /// Seconds between pings when nothing else is sent (libmosquitto's minimum is 5).
    public var keepAlive: Int

    public init(host: String, port: Int, tls: TLS = .off, username: String? = nil, password: String? = nil,
                clientID: String, keepAlive: Int = 60) {
        self.host = host
        self.port = port
        self.tls = tls
        self.username = username
        self.password = password
        self.clientID = clientID
        self.keepAlive = keepAlive
    }

    /// "mqtt://broker.lan:1883" or "mqtts://broker.lan:8883", for status and logs.
    public var broker: String {
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(tls == .off ? "mqtt" : "mqtts")://\(shownHost):\(port)"
    }
}

extension MQTTConnectionSettings {
    /// `[mqtt]` as the connection takes it: the password read from its file (the reason it cannot
    /// be, naming the file), the client id `[mqtt] client_id` or `lifesignal-<device id>`.
    public init(_ configuration: MQTTConfiguration, deviceID: String) throws(SecretFileError) {
        let password = try configuration.passwordFile.map { path throws(SecretFileError) in
            try SecretFile.read(path: path, what: "the MQTT password file", secret: "the broker password")
        }
        self.init(host: configuration.host, port: configuration.port, tls: configuration.tls, username: configuration.username, password: password,
                  clientID: configuration.clientID ?? "lifesignal-\(configuration.deviceID ?? deviceID)",
                  keepAlive: Int(configuration.keepAlive.components.seconds))
    }
}
