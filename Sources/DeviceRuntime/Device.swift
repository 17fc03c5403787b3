import CheckInFeature
public import ComposableCore
import ControlProtocol
import ControlSocket
import DeviceControl
public import DeviceConfig
public import DeviceFeature
import DeviceLive
import DeviceLogging
import LEDDriver
public import Logging

/// The composition root: the device feature's store over the live (or test) dependencies, the LED
/// driver that shows its indicator, and the control socket that answers `lifesignalctl`. It only
/// wires; what each part does over time is a service (`DeviceServices`), and every decision is the
/// feature's.
@MainActor
public final class Device {
    public let store: Store<DeviceFeature>
    let leds: LEDDriver
    let reporter: StatusReporter
    let control: ControlServer
    let configuration: DeviceConfiguration

    public init(configuration: DeviceConfiguration, dependencies: DeviceDependencies, logger: Logger,
                simulatePress: (@Sendable (Duration) async -> Void)?) {
        self.configuration = configuration
        var endpoints = DeviceFeature.Endpoints(
            backend: dependencies.backend?.endpoint ?? "backend",
            healthchecksCheckIns: dependencies.healthchecks?.checkIns?.endpoint ?? "healthchecks",
            healthchecksHeartbeat: dependencies.healthchecks?.heartbeat?.endpoint ?? "healthchecks heartbeat",
            healthchecksAlert: dependencies.healthchecks?.alert?.endpoint ?? "healthchecks alert",
            healthchecksSite: dependencies.healthchecks?.management?.endpoint ?? "healthchecks")
        if let mqtt = dependencies.mqtt {
            endpoints.mqttBroker = mqtt.broker
            endpoints.mqttDeviceID = mqtt.deviceID
        }
        store = Store(
            initialState: DeviceFeature.initialState(configuration, chipDescription: dependencies.gpio.chipDescription,
                                                     endpoints: endpoints),
            reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
        leds = LEDDriver(
            language: configuration.ledLanguage, setLED: dependencies.gpio.setLED,
            monotonicNow: dependencies.clock.uptime, sleep: dependencies.clock.sleep,
            report: { error in logger.error("LED output failed: \(error)") })
        reporter = StatusReporter(clock: dependencies.clock, store: dependencies.store, leds: leds,
                                  gpioBackend: configuration.gpio.backend.rawValue, hasBackend: configuration.uplink != nil)
        let waiters = ActionWaiters<DeviceFeature.Action>()
        let handler = ControlHandler(
            store: store, waiters: waiters,
            context: ControlContext(clock: dependencies.clock, store: dependencies.store, reports: reporter,
                                    simulatePress: simulatePress))
        control = ControlServer(
            path: configuration.controlSocket,
            // Refusals in the protocol's own JSON, so lifesignalctl shows the reason, not a parse error.
            rejectionReply: { ControlCoding.encode(ControlResponse.failure(ControlServer.plainRejectionReply($0))) }
        ) { line, _ in await handler.handle(line) }

        // The LEDs first: an acknowledgement is shown before anything else happens for it (the
        // control socket's answer, the log line).
        var previous = store.state
        var shown = previous.indicator
        store.observe { [leds, waiters, logger] state, action in
            let indicator = state.indicator
            leds.show(indicator)
            // Lines lost with their chip are off, and lines requested again start off: either way
            // the driver forgets what it wrote, so status never reports an LED lit that is not.
            switch action {
            case .gpio(.delegate(.linesLost)), .gpio(.delegate(.linesRestored)): leds.outputsReset()
            default: break
            }
            waiters.deliver(action)
            logger.write(DeviceFeature.log(action, before: previous, after: state))
            if indicator != shown { logger.debug("LEDs show \(indicator.rawValue)") }
            shown = indicator
            previous = state
        }
    }

    /// One line for `systemctl status` and the terminal view.
    public var summary: String { reporter.summary(store.state) }
}
