import CheckInFeature
import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import ComposableCore
import ControlProtocol
import ControlSocket
public import DeviceClock
import DeviceClockLive
public import DeviceConfig
import GPIOClient
public import GPIOSimulated
import LEDLanguage
public import Logging
import SimulatorTerminal
import UplinkLive

/// The composition root: builds the running device from a configuration — store, GPIO, feature,
/// LED driver, control socket — exactly as production runs it, so tests can build it too.
@MainActor
public final class Device {
    public let configuration: DeviceConfiguration
    let store: Store<CheckInFeature>
    /// The check-in store, kept trying while it cannot be opened (see StoreSupervisor).
    let storeSupervisor: StoreSupervisor
    let gpio: GPIOClient
    let simulator: SimulatedGPIO?
    let leds: LEDDriver
    let clock: DeviceClock
    let waiters = DelegateWaiters()
    let logger: Logger
    private var controlServer: ControlServer?
    private var terminal: SimulatorTerminal?
    private var buttonLoop: Task<Void, Never>?
    private var wallClockMonitor: WallClockMonitor?
    // MARK: Uplink (nil on an offline device)
    let uploadQueue: UploadQueue
    let uploader: Uploader?
    private let uplinkTransport: CurlTransport?
    private var settingsSync: SettingsSync?

    /// Opens the store and the GPIO lines. Nothing runs until `start()`.
    public init(configuration: DeviceConfiguration, clock: DeviceClock, logger: Logger) throws(StartupError) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger

        // A store that cannot be opened does not stop the daemon: it shows the fault and retries.
        storeSupervisor = StoreSupervisor(path: configuration.storePath, logger: logger, sleep: clock.sleep)
        uploadQueue = .live(storeSupervisor)
        let uplink = try Uploader.live(configuration.uplink, queue: uploadQueue, clock: clock, logger: logger)
        uploader = uplink?.0
        uplinkTransport = uplink?.1

        let leds = configuration.ledLanguage.leds
        switch configuration.gpio.backend {
        case .simulated:
            let simulator = SimulatedGPIO(
                ledCount: leds.count,
                debounce: configuration.button.debounce,
                chatter: ChatterModel(edges: configuration.simulator.chatterEdges, span: configuration.simulator.chatterSpan),
                monotonicNow: clock.uptime,
                sleep: clock.sleep
            )
            self.simulator = simulator
            gpio = simulator.client
        case .libgpiod:
            simulator = nil
            gpio = try Self.openLibgpiod(configuration, logger: logger)
        }

        let feature = CheckInFeature(store: storeSupervisor.client, clock: clock)
        store = Store(
            initialState: CheckInFeature.State(
                configuredSettings: configuration.configuredSettings,
                policy: configuration.settingsPolicy,
                acknowledgementDuration: configuration.acknowledgement,
                longPressDuration: configuration.button.longPress
            ),
            reducer: feature
        )
        self.leds = LEDDriver(
            language: configuration.ledLanguage,
            setLED: gpio.setLED,
            monotonicNow: clock.uptime,
            sleep: clock.sleep,
            report: { error in logger.error("LED output failed: \(error)") }
        )
    }

    /// The simulated board when `[gpio] backend = "simulated"` (the benchmark presses it directly).
    public var simulatedGPIO: SimulatedGPIO? { simulator }

    /// How the simulated board is shown in a terminal, if at all.
    public struct TerminalView: Sendable {
        public var useColor: Bool
        public var logSink: LogSink
        /// Called when the person presses `q` or Ctrl-C in the view.
        public var onQuit: @Sendable () -> Void

        public init(useColor: Bool, logSink: LogSink, onQuit: @escaping @Sendable () -> Void) {
            self.useColor = useColor
            self.logSink = logSink
            self.onQuit = onQuit
        }
    }

    /// Starts the feature, the LED driver, the button loop, the control socket and (with simulated
    /// GPIO in a terminal) the terminal view.
    public func start(terminalView: TerminalView? = nil) throws(StartupError) {
        if let terminalView, let simulator {
            try startTerminal(terminalView, simulator: simulator)
        }
        let featureLog = FeatureLog(logger: logger)
        var previous = store.state
        settingsSync = uploader.map { SettingsSync(client: $0.client, store: store, storeClient: storeSupervisor.client, logger: logger) }
        let uplinkEvents = UplinkEvents(uploader: uploader, settingsSync: settingsSync)
        store.observe { [leds, waiters, uplinkEvents, weak self] state, action in
            if case let .delegate(delegate) = action { waiters.deliver(delegate) }
            uplinkEvents.handle(action)
            leds.show(state.indicator)
            featureLog.record(before: previous, after: state, action: action)
            previous = state
            if let self, let terminal = self.terminal { terminal.setCaption(self.summary) }
        }
        leds.show(store.state.indicator)
        store.send(.daemonStarted)
        // MARK: Store faults (StoreSupervisor): say that a damaged file was replaced; reload once a
        // store that could not be opened opens, from the back-off loop or from a press.
        if let replaced = storeSupervisor.replacedDamagedFile {
            store.send(.setError(DeviceError(.storeReplaced, replaced)))
        }
        Task { [storeSupervisor, store] in
            await storeSupervisor.superviseOpening(opened: { @MainActor in
                store.send(.loadCheckInSettings)
                store.send(.loadCheckInHistory)
            })
        }
        // MARK: end of store faults
        // MARK: Wall clock (docs/time.md): sets, NTP steps and the first synchronisation reach the feature.
        do {
            wallClockMonitor = try WallClockMonitor.start { [store] in
                Task { @MainActor in store.send(.wallClockChanged) }
            }
        } catch {
            logger.warning("wall-clock steps will only be noticed at the next event: \(error)")
        }

        let events = gpio.buttonEvents
        buttonLoop = Task { [store, logger] in
            for await event in events {
                logger.debug("button \(event.kind.rawValue)")
                store.send(event.kind == .pressed ? .buttonPressed : .buttonReleased)
            }
        }

        var simulatePress: (@Sendable (Duration) async -> Void)?
        if let simulator {
            simulatePress = { hold in _ = await simulator.press(hold: hold) }
        }
        let handler = ControlHandler(
            store: store, storeClient: storeSupervisor.client, leds: leds, clock: clock,
            gpioBackend: configuration.gpio.backend.rawValue, simulatePress: simulatePress, waiters: waiters,
            uploadQueue: uploadQueue, uploader: uploader
        )
        let server = ControlServer(
            path: configuration.controlSocket,
            // Refusals in the protocol's own JSON, so lifesignalctl shows the reason, not a parse error.
            rejectionReply: { ControlCoding.encode(ControlResponse.failure(ControlServer.plainRejectionReply($0))) }
        ) { line, _ in await handler.handle(line) }
        do {
            try server.start()
        } catch {
            throw .system("control socket: \(error)")
        }
        controlServer = server
        uploader?.start()
        logger.notice("lifesignald ready", metadata: [
            "store": "\(configuration.storePath)", "socket": "\(configuration.controlSocket)",
            "gpio": "\(configuration.gpio.backend.rawValue)",
            "uplink": "\(configuration.uplink?.url ?? "none (offline device)")",
        ])
    }

    private func startTerminal(_ view: TerminalView, simulator: SimulatedGPIO) throws(StartupError) {
        do {
            let terminal = try SimulatorTerminal(
                gpio: simulator,
                ledColors: configuration.ledLanguage.leds.map { LEDColor(configName: $0.colour) },
                longPressHold: configuration.button.longPress + .milliseconds(500),
                useColor: view.useColor,
                onQuit: view.onQuit
            )
            try terminal.start()
            view.logSink.redirect { line in terminal.printLine(line) }
            terminal.printLine("Simulated button: space/enter = press, l = long press, q = quit")
            self.terminal = terminal
        } catch {
            throw .system("terminal view: \(error)")
        }
    }

    /// One line for `systemctl status` and the terminal view: phase, deadline, time left.
    public var summary: String {
        let state = store.state
        var text = state.indicator.rawValue.replacingOccurrences("_", " ")
        if let last = state.lastCheckIn {
            let left = state.settings.interval - max(clock.now().elapsed(since: last.at), .zero)
            text += left > .zero ? " · deadline in \(DurationText.humane(left))" : " · overdue by \(DurationText.humane(left))"
        }
        if let error = state.error { text += " · \(error.message)" }
        return text
    }

    /// Stops taking input, lets a check-in write in flight finish, switches the LEDs off, closes up.
    public func stop() async {
        controlServer?.stop()
        controlServer = nil
        uploader?.stop()
        uplinkTransport?.shutdown()
        store.send(.daemonStopping)
        // A durable write that is under way must complete: wait for effects (bounded).
        let deadline = clock.now().uptime + .seconds(5)
        while store.state.isCheckingIn, clock.now().uptime < deadline {
            try? await clock.sleep(.milliseconds(5))
        }
        store.cancelAllEffects()
        buttonLoop?.cancel()
        await storeSupervisor.stop()
        wallClockMonitor?.stop()
        leds.stop()
        gpio.shutdown()
        logger.notice("lifesignald stopped")
        terminal?.restore()
    }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
