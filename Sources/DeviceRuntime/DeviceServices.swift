import ComposableCore
import ControlSocket
import DeviceFeature
import DeviceLive
import LEDDriver
import Logging
import ServiceTree

/// A part of the device feature that lives as long as a service: its `start` action's effects run
/// until graceful shutdown, then its `stop` action ends them. The service tree's order gives the
/// order of shutdown (reverse).
struct FeatureService: Service, CustomStringConvertible {
    let name: String
    let store: Store<DeviceFeature>
    let start: DeviceFeature.Action
    let stop: DeviceFeature.Action?

    var description: String { name }

    func run() async {
        let effects = await store.send(start)
        try? await gracefulShutdown()
        if let stop { await store.send(stop) }
        effects.cancel()
        await effects.finish()
    }
}

/// The check-in countdown, the store's health and the notifications: started with the daemon;
/// at shutdown a check-in being written is awaited, never abandoned.
struct CoreService: Service, CustomStringConvertible {
    let store: Store<DeviceFeature>
    var description: String { "device" }

    func run() async {
        await store.send(.started)
        try? await gracefulShutdown()
        await store.send(.stopping)
        await store.waitForEffects(withID: DeviceFeature.checkInWriteID)
        // The clean-stop mark is the last word: without it the next start reports an unexpected restart.
        await store.waitForEffects(withID: DeviceFeature.runMarkID)
    }
}

/// The LEDs show the indicator while the daemon runs, and go off at shutdown (the buzzer too).
struct LEDService: Service, CustomStringConvertible {
    let leds: LEDDriver
    let buzzer: BuzzerDriver?
    let store: Store<DeviceFeature>
    var description: String { "leds" }

    func run() async {
        await leds.show(store.state.indicator)
        try? await gracefulShutdown()
        await leds.stop()
        await buzzer?.stop()
    }
}

/// The check-in store's thread and file, and the uplink's HTTP threads: the first to start, the
/// last to go (the store gets a final checkpoint, then is closed).
struct ResourcesService: Service, CustomStringConvertible {
    let resources: Daemon.Resources
    var description: String { "store" }

    func run() async {
        try? await gracefulShutdown()
        await resources.close()
    }
}

/// The control socket: listening once started, closed first at shutdown so nothing new arrives.
/// Once it listens the device is up: `ready` finishes, and systemd hears `READY=1`.
struct ControlSocketService: Service, CustomStringConvertible {
    let server: ControlServer
    let ready: AsyncStream<Void>.Continuation
    let onReady: @Sendable () -> Void
    var description: String { "control-socket" }

    func run() async throws {
        do {
            try server.start()
        } catch {
            throw StartupError.system("control socket: \(error)")
        }
        onReady()
        ready.finish()
        try? await gracefulShutdown()
        server.stop()
    }
}
