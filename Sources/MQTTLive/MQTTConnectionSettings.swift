/// Where and how to reach the broker: `[mqtt]` as the connection takes it, the password read.
public struct MQTTConnectionSettings: Sendable {
    public enum TLS: Hashable, Sendable {
        /// Plain TCP.
        case off
        /// TLS, trusting the system's CA store (/etc/ssl/certs).
        case systemCertificates
        /// TLS, trusting the CA certificates in this PEM file only.
        case caFile(String)
    }

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
