import CheckInModels
import GPIOClient
public import GPIOSimulated
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
    /// Nil without `[buzzer]`.
    let buzzer: BuzzerDriver?
    let reporter: StatusReporter
    let control: ControlServer
    let configuration: DeviceConfiguration

    public init(configuration: DeviceConfiguration, dependencies: DeviceDependencies, logger: Logger,
                simulatePress: (@Sendable (Duration) async -> Void)?, simulator: SimulatedGPIO? = nil) {
        self.configuration = configuration
        var endpoints = DeviceFeature.Endpoints(
            backend: dependencies.backend?.endpoint ?? "backend",
            healthchecksCheckIns: dependencies.healthchecks?.checkIns?.endpoint ?? "healthchecks",
            healthchecksHeartbeat: dependencies.healthchecks?.heartbeat?.endpoint ?? "healthchecks heartbeat",
            healthchecksAlert: dependencies.healthchecks?.alert?.endpoint ?? "healthchecks alert",
            healthchecksSite: dependencies.healthchecks?.management?.endpoint ?? "healthchecks")
        endpoints.hostName = dependencies.hostName
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
        let buzzer = configuration.buzzer.map { _ in
            BuzzerDriver(setBuzzer: dependencies.gpio.setBuzzer, monotonicNow: dependencies.clock.uptime, sleep: dependencies.clock.sleep,
                         report: { error in logger.error("buzzer output failed: \(error)") })
        }
        self.buzzer = buzzer
        reporter = StatusReporter(clock: dependencies.clock, store: dependencies.store, leds: leds,
                                  gpioBackend: configuration.gpio.backend.rawValue, hasBackend: configuration.uplink != nil)
        reporter.buzzer = buzzer
        let waiters = ActionWaiters<DeviceFeature.Action>()
        let handler = ControlHandler(
            store: store, waiters: waiters,
            context: ControlContext(clock: dependencies.clock, store: dependencies.store, reports: reporter,
                                    simulatePress: simulatePress, simulateInput: simulator.map(Self.simulateInput)))
        control = ControlServer(
            path: configuration.controlSocket,
            // Refusals in the protocol's own JSON, so lifesignalctl shows the reason, not a parse error.
            rejectionReply: { ControlCoding.encode(ControlResponse.failure(ControlServer.plainRejectionReply($0))) }
        ) { line, _ in await handler.handle(line) }

        // The LEDs first: an acknowledgement is shown before anything else happens for it (the
        // control socket's answer, the log line). The log's lines wait while a check-in is written.
        var shown = store.state.indicator
        let actionLog = HeldActionLog(initial: store.state, holds: \.acknowledgementPending,
                                      entries: DeviceFeature.log, write: { logger.write($0) })
        let buzzerPatterns = configuration.buzzer
        store.observe { [leds, waiters, logger] state, action in
            let indicator = state.indicator
            leds.show(indicator, overlays: state.dependentLights)
            if let buzzer, let buzzerPatterns { buzzer.play(state.buzzer.map(buzzerPatterns.pattern(for:))) }
            // Lines lost with their chip are off, and lines requested again start off: either way
            // the driver forgets what it wrote, so status never reports an LED lit that is not.
            switch action {
            case .gpio(.delegate(.linesLost)), .gpio(.delegate(.linesRestored)):
                leds.outputsReset()
                buzzer?.outputReset()
            default: break
            }
            waiters.deliver(action)
            actionLog.record(action, after: state)
            if indicator != shown { logger.debug("LEDs show \(indicator.rawValue)") }
            shown = indicator
        }
    }

    /// `lifesignalctl sim input`: the simulated board's mains or low-battery line.
    static func simulateInput(_ simulator: SimulatedGPIO) -> @Sendable (String, Bool) -> String? {
        { name, active in
            guard let line = InputLine(rawValue: name) else {
                return "no input \(TerminalText.quoted(name)): the inputs are mains and low_battery"
            }
            guard simulator.setInput(line, active: active) else {
                return "the simulated board has no \(name) input: set [power] \(line == .mains ? "mains_line" : "low_battery_line")"
            }
            return nil
        }
    }

    /// One line for `systemctl status` and the terminal view.
    public var summary: String { reporter.summary(store.state) }
}
