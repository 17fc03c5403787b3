import ComposableCore

/// The device's connection to an MQTT broker, as an injectable value.
///
/// One connection at a time: `connect` starts an attempt (dropping any previous connection) and
/// its outcome arrives on `connectionEvents`; publishes and subscriptions finish with a result,
/// never hang past the connection (a connection that drops fails what waits on it) and never throw.
public struct MQTTClient: Sendable {
    /// Where the client connects, for status and logs ("mqtts://broker.lan:8883"; no credentials).
    public var broker: String
    /// The device's id on the broker: `[mqtt] device_id`, or one derived from the machine's id.
    public var deviceID: String
    /// Starts a connection attempt with these options; `.connected` or a failure follows.
    public var connect: @Sendable (MQTTConnectOptions) async -> Void
    /// The connection's life: connected, failed, lost. Call once: one consumer.
    public var connectionEvents: @Sendable () -> AsyncStream<MQTTConnectionEvent>
    /// Messages arriving on the subscriptions. Call once: one consumer. Under a flood the oldest
    /// unread messages are dropped, never the connection's events.
    public var messages: @Sendable () -> AsyncStream<MQTTInboundMessage>
    /// Publishes one message; QoS 1 finishes when the broker acknowledged it (PUBACK).
    public var publish: @Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>
    /// Subscribes to these topic filters (QoS 1); finishes when the broker acknowledged them.
    public var subscribe: @Sendable ([String]) async -> Result<Void, MQTTFailure>
    /// Ends the connection cleanly (the broker does not send the last will); returns once it is closed.
    public var disconnect: @Sendable () async -> Void

    public init(
        broker: String,
        deviceID: String = "lifesignal",
        connect: @escaping @Sendable (MQTTConnectOptions) async -> Void,
        connectionEvents: @escaping @Sendable () -> AsyncStream<MQTTConnectionEvent>,
        messages: @escaping @Sendable () -> AsyncStream<MQTTInboundMessage>,
        publish: @escaping @Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>,
        subscribe: @escaping @Sendable ([String]) async -> Result<Void, MQTTFailure>,
        disconnect: @escaping @Sendable () async -> Void
    ) {
        self.broker = broker
        self.deviceID = deviceID
        self.connect = connect
        self.connectionEvents = connectionEvents
        self.messages = messages
        self.publish = publish
        self.subscribe = subscribe
        self.disconnect = disconnect
    }

    /// Every call is reported as unexpected: tests override what they use.
    public static func failing(broker: String = "test broker") -> MQTTClient {
        MQTTClient(
            broker: broker,
            connect: { _ in UnexpectedCall.report("MQTTClient.connect") },
            connectionEvents: {
                UnexpectedCall.report("MQTTClient.connectionEvents")
                return AsyncStream { $0.finish() }
            },
            messages: {
                UnexpectedCall.report("MQTTClient.messages")
                return AsyncStream { $0.finish() }
            },
            publish: { _ in
                UnexpectedCall.report("MQTTClient.publish")
                return .failure(MQTTFailure(.notConnected, "MQTTClient.publish is not implemented in this test"))
            },
            subscribe: { _ in
                UnexpectedCall.report("MQTTClient.subscribe")
                return .failure(MQTTFailure(.notConnected, "MQTTClient.subscribe is not implemented in this test"))
            },
            disconnect: { UnexpectedCall.report("MQTTClient.disconnect") })
    }
}

/// What a connection attempt carries: the last will the broker publishes if the device drops off
/// without a clean disconnect.
public struct MQTTConnectOptions: Hashable, Sendable {
    public var will: MQTTMessage?

    public init(will: MQTTMessage?) {
        self.will = will
    }
}

/// The connection's life as the client reports it.
public enum MQTTConnectionEvent: Hashable, Sendable {
    /// The broker accepted the connection (CONNACK 0).
    case connected
    /// An attempt failed before the broker accepted it.
    case connectFailed(MQTTFailure)
    /// An accepted connection dropped (not by `disconnect`).
    case connectionLost(MQTTFailure)
}
