/// The MQTT broker connection (`lifesignalctl status`); nil in a status from a device without `[mqtt]`.
public struct MQTTReport: Codable, Hashable, Sendable {
    /// "mqtt://host:port" or "mqtts://host:port".
    public var broker: String
    /// connecting, connected, waiting_to_retry, stopped.
    public var state: String
    /// ISO 8601 UTC: when the connection was last accepted.
    public var lastConnected: String?
    /// Since when the broker has been away (after a failed attempt).
    public var unavailableSince: String?
    /// Why the last attempt failed or the connection dropped.
    public var lastError: String?
    /// unreachable, refused, tls, no_answer, lost, not_connected, rejected.
    public var lastErrorKind: String?
    public var consecutiveFailures: Int
    /// When the next attempt is due (waiting_to_retry only).
    public var nextRetry: String?
    /// Events stored and not yet taken by the broker (-1 when the store cannot be read).
    public var eventsWaiting: Int
    public var eventsPublishedSinceStart: Int
    public var commandsAccepted: Int
    public var commandsRefused: Int
    public var lastRefusal: String?
    /// The broker refused the subscription to the commands.
    public var subscriptionProblem: String?
    public var deviceID: String
    public var baseTopic: String
    public var discoveryTopic: String
    public var remoteCheckIn: Bool

    public init(broker: String, state: String, lastConnected: String?, unavailableSince: String?, lastError: String?,
                lastErrorKind: String?, consecutiveFailures: Int, nextRetry: String?, eventsWaiting: Int,
                eventsPublishedSinceStart: Int, commandsAccepted: Int, commandsRefused: Int, lastRefusal: String?,
                subscriptionProblem: String?, deviceID: String, baseTopic: String, discoveryTopic: String, remoteCheckIn: Bool) {
        self.broker = broker
        self.state = state
        self.lastConnected = lastConnected
        self.unavailableSince = unavailableSince
        self.lastError = lastError
        self.lastErrorKind = lastErrorKind
        self.consecutiveFailures = consecutiveFailures
        self.nextRetry = nextRetry
        self.eventsWaiting = eventsWaiting
        self.eventsPublishedSinceStart = eventsPublishedSinceStart
        self.commandsAccepted = commandsAccepted
        self.commandsRefused = commandsRefused
        self.lastRefusal = lastRefusal
        self.subscriptionProblem = subscriptionProblem
        self.deviceID = deviceID
        self.baseTopic = baseTopic
        self.discoveryTopic = discoveryTopic
        self.remoteCheckIn = remoteCheckIn
    }
}
