public import MQTTClient

extension MQTTClient {
    /// The client over one live connection (its thread runs until `connection.close()`).
    public static func live(_ connection: MQTTConnection, deviceID: String) -> MQTTClient {
        MQTTClient(
            broker: connection.broker,
            deviceID: deviceID,
            connect: { options in connection.connect(options) },
            connectionEvents: { connection.connectionEvents },
            messages: { connection.messages },
            publish: { message in await connection.publish(message) },
            subscribe: { filters in await connection.subscribe(filters) },
            disconnect: { await connection.disconnect() })
    }
}
