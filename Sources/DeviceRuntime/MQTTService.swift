import ComposableCore
import DeviceFeature
import ServiceTree

/// The MQTT connection: connecting (and reconnecting) while the daemon runs; at shutdown the
/// device says `offline` and disconnects cleanly before the store and the connection's thread go.
struct MQTTService: Service, CustomStringConvertible {
    let store: Store<DeviceFeature>
    var description: String { "mqtt" }

    func run() async {
        let running = await store.send(.mqtt(.start))
        try? await gracefulShutdown()
        await store.send(.mqtt(.stop)).finish()
        running.cancel()
        await running.finish()
    }
}
