/// One message to publish.
public struct MQTTMessage: Hashable, Sendable {
    public enum QoS: Int, Hashable, Sendable {
        /// At most once: no acknowledgement.
        case atMostOnce = 0
        /// At least once: the broker acknowledges it (PUBACK); a duplicate is possible after a reconnect.
        case atLeastOnce = 1
    }

    public var topic: String
    public var payload: String
    public var qos: QoS
    /// The broker keeps it and gives it to every later subscriber.
    public var retain: Bool

    public init(topic: String, payload: String, qos: QoS = .atLeastOnce, retain: Bool) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}

/// A message that arrived on a subscription. Payloads are kept up to `keptBytes`; a longer one
/// arrives with `payload` empty and its real `size`, so it can be refused without holding it.
public struct MQTTInboundMessage: Hashable, Sendable {
    public static let keptBytes = 4096

    public var topic: String
    public var payload: [UInt8]
    /// The payload's length as sent.
    public var size: Int
    /// Replayed from the broker's retained store rather than published just now.
    public var retained: Bool

    public init(topic: String, payload: [UInt8], size: Int? = nil, retained: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.size = size ?? payload.count
        self.retained = retained
    }

    /// The payload as text, when it is valid UTF-8.
    public var text: String? {
        String(validating: payload, as: UTF8.self)
    }
}

/// Why the broker could not be reached or used, classified for the message and the advice.
public struct MQTTFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// No connection: name resolution, a refused or unreachable port, a timeout.
        case unreachable
        /// The broker answered but refused the client: wrong username or password, not authorised.
        case refused
        /// The TLS handshake failed: certificate not trusted, wrong host name, not a TLS port.
        case tls
        /// The broker did not answer in time (no CONNACK, no ping answer within the keep-alive).
        case noAnswer = "no_answer"
        /// An accepted connection dropped: the broker stopped, the network went away.
        case lost
        /// A publish or subscription while there is no connection.
        case notConnected = "not_connected"
        /// The broker or the library refused a request (a protocol error, a bad topic).
        case rejected
    }

    public var kind: Kind
    /// What happened, naming the broker's or the library's own words. Never contains the password.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
