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
import NotificationsFeature
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
    /// Holds the GPIO lines, and waits for the chip when it is missing or goes away.
    let gpioSupervisor: GPIOSupervisor
    let simulator: SimulatedGPIO?
    let leds: LEDDriver
    let clock: DeviceClock
    let waiters = DelegateWaiters<CheckInFeature.Action.Delegate>()
    let logger: Logger
    private var controlServer: ControlServer?
    private var terminal: SimulatorTerminal?
    private var wallClockMonitor: WallClockMonitor?
    // MARK: Uplink (nil on an offline device)
    let uploadQueue: UploadQueue<CheckInRecord>
    let alertQueue: UploadQueue<AlertRecord>
    let uplink: Uplink?
    var uploader: CheckInUploader? { uplink?.checkIns }
    private var settingsSync: SettingsSync?
    // MARK: Notifications (Device+Notifications.swift)
    let notifications: Store<NotificationsFeature>
    let notificationWaiters = DelegateWaiters<NotificationsFeature.Action.Delegate>()
    let pings: PingServices?
    /// Heartbeats, healthchecks pings and the network watcher (DeliveryServices).
    let deliveries: DeliveryServices

    /// Opens the store and the GPIO lines. Nothing runs until `start()`.
    public init(configuration: DeviceConfiguration, clock: DeviceClock, logger: Logger) throws(StartupError) {
        self.configuration = configuration
        self.clock = clock
        self.logger = logger

        // A store that cannot be opened does not stop the daemon: it shows the fault and retries.
        storeSupervisor = StoreSupervisor(path: configuration.storePath, logger: logger, sleep: clock.sleep)
        uploadQueue = .live(storeSupervisor)
        alertQueue = .alerts(storeSupervisor)
        uplink = try Uplink.live(configuration.uplink, checkIns: uploadQueue, alerts: alertQueue, clock: clock, logger: logger)
        notifications = Self.makeNotifications(configuration.uplink, store: storeSupervisor, uplink: uplink?.client,
                                               clock: clock)
        if let uplink, let uplinkConfiguration = configuration.uplink {
            pings = PingServices(uploader: uplink.checkIns, configuration: uplinkConfiguration, store: storeSupervisor,
                                 logger: logger)
        } else {
            pings = nil
        }
        deliveries = try DeliveryServices.live(configuration, backend: uplink?.checkIns, backendQueue: uploadQueue,
                                               store: storeSupervisor, clock: clock, logger: logger)

        let leds = configuration.ledLanguage.leds
        let connector: GPIOConnector
        let initialGPIO: Result<GPIOClient, GPIOError>
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
            connector = .simulated(simulator)
            initialGPIO = .success(simulator.client)
        case .libgpiod:
            simulator = nil
            connector = .libgpiod(configuration, logger: logger)
            initialGPIO = try Self.openLibgpiod(connector)
        }
        gpioSupervisor = GPIOSupervisor(initial: initialGPIO, connector: connector, logger: logger, sleep: clock.sleep)
        gpio = gpioSupervisor.client

        let feature = CheckInFeature(store: storeSupervisor.client, clock: clock, alertStore: storeSupervisor.alertClient)
        var initialState = CheckInFeature.State(
            configuredSettings: configuration.configuredSettings,
            policy: configuration.settingsPolicy,
            acknowledgementDuration: configuration.acknowledgement,
            longPressDuration: configuration.button.longPress
        )
        initialState.alert = Self.alertState(configuration)
        initialState.uploadBacklog = UploadBacklog(staleAfter: configuration.uplink?.staleAfter)
        store = Store(initialState: initialState, reducer: feature)
        self.leds = LEDDriver(
            language: configuration.ledLanguage,
            setLED: gpio.setLED,
            monotonicNow: clock.uptime,
            sleep: clock.sleep,
            report: { error in logger.error("LED output failed: \(error)") }
        )
    }

    /// `[alert]` as the feature's alert state (nil settings = alerts off).
    static func alertState(_ configuration: DeviceConfiguration) -> AlertState {
        guard configuration.alert.enabled else { return AlertState() }
        return AlertState(settings: AlertState.Settings(
            cancelWindow: configuration.alert.cancelWindow, deliveredDisplay: configuration.alert.deliveredDisplay,
            hasUplink: configuration.uplink != nil))
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
        settingsSync = uplink.map { SettingsSync(client: $0.client, store: store, storeClient: storeSupervisor.client, logger: logger) }
        let uplinkEvents = UplinkEvents(uplink: uplink, settingsSync: settingsSync, pingResponses: pings?.responseUploader,
                                        deliveries: deliveries)
        uplinkEvents.forwardUploads(to: store)
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
        store.send(.alert(.loadPending))
        if configuration.alert.enabled, configuration.uplink == nil {
            logger.warning("""
                a long press stores a help alert but cannot send it: no [uplink] is configured (the LEDs show \
                the fault pattern after the cancel window; set [alert] enabled = false to make a long press do nothing)
                """)
        }
        Task { [storeSupervisor, store, logger] in
            // Not open yet: the opening hook below loads them once the store opens.
            guard await storeSupervisor.isOpen else { return }
            await Self.loadStoredPings(storeSupervisor, into: store, logger: logger)
        }
        // MARK: Store faults (StoreSupervisor): say that a damaged file was replaced; reload once a
        // store that could not be opened opens, from the back-off loop or from a press.
        if let replaced = storeSupervisor.replacedDamagedFile {
            store.send(.setError(DeviceError(.storeReplaced, replaced)))
        }
        Task { [storeSupervisor, store, notifications, logger] in
            await storeSupervisor.superviseOpening(opened: { @MainActor in
                store.send(.loadCheckInSettings)
                store.send(.loadCheckInHistory)
                notifications.send(.loadNotifications)
                await Self.loadStoredPings(storeSupervisor, into: store, logger: logger)
                store.send(.alert(.loadPending))
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

        // MARK: GPIO chip coming and going (GPIOSupervisor): the fault reaches the feature (status,
        // logs, systemd STATUS); the LEDs are written afresh whenever the lines are requested again.
        if case let .waiting(failure) = gpioSupervisor.condition {
            store.send(.gpioLost(Self.gpioFaultMessage(failure, chip: gpioSupervisor.chipDescription)))
        }
        gpioSupervisor.start(
            onButton: { [store, logger] event in
                logger.debug("button \(event.kind.rawValue)")
                store.send(event.kind == .pressed ? .buttonPressed : .buttonReleased)
            },
            changed: { [store, leds, chip = gpioSupervisor.chipDescription] condition in
                switch condition {
                case .connected: store.send(.gpioRestored)
                case let .waiting(failure): store.send(.gpioLost(Self.gpioFaultMessage(failure, chip: chip)))
                }
                leds.outputsReset()
            })

        var simulatePress: (@Sendable (Duration) async -> Void)?
        if let simulator {
            simulatePress = { hold in _ = await simulator.press(hold: hold) }
        }
        let handler = ControlHandler(
            store: store, storeClient: storeSupervisor.client, leds: leds, clock: clock,
            gpioBackend: configuration.gpio.backend.rawValue, simulatePress: simulatePress, waiters: waiters,
            uploadQueue: uploadQueue, uploader: uploader, alertUploader: uplink?.alerts,
            alertsWaiting: { [alertQueue] () async throws(StoreFailure) in try await alertQueue.depth() }, pings: pings
        )
        handler.deliveries = deliveries
        if let alerts = uplink?.alerts { deliveries.alsoOnNetworkChange.append { alerts.networkChanged() } }
        if let responses = pings?.responseUploader { deliveries.alsoOnNetworkChange.append { responses.networkChanged() } }
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
        handler.notifications = startNotifications()
        uplink?.start()
        deliveries.start()
        pings?.start(feature: store, notifications: notifications, storeClient: storeSupervisor.client, logger: logger)
        logger.notice("lifesignald ready", metadata: [
            "store": "\(configuration.storePath)", "socket": "\(configuration.controlSocket)",
            "gpio": "\(configuration.gpio.backend.rawValue)",
            "uplink": "\(configuration.uplink?.url ?? "none (offline device)")",
        ])
    }

    /// Pings stored before a restart (or before the store could open) light their pattern again.
    private static func loadStoredPings(_ storeSupervisor: StoreSupervisor, into store: Store<CheckInFeature>,
                                        logger: Logger) async {
        do {
            let pending = try await storeSupervisor.client.pendingPings()
            if !pending.isEmpty { store.send(.pingsReceived(pending)) }
        } catch {
            logger.error("stored pings could not be read: \(error.message)")
        }
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
        pings?.stop()
        uplink?.stop()
        deliveries.stop()
        store.send(.daemonStopping)
        // A durable write that is under way must complete: wait for effects (bounded).
        let deadline = clock.now().uptime + .seconds(5)
        while store.state.isCheckingIn, clock.now().uptime < deadline {
            try? await clock.sleep(.milliseconds(5))
        }
        store.cancelAllEffects()
        notifications.send(.daemonStopping)
        notifications.cancelAllEffects()
        await storeSupervisor.stop()
        wallClockMonitor?.stop()
        leds.stop()
        gpioSupervisor.stop()
        logger.notice("lifesignald stopped")
        terminal?.restore()
    }
}

extension Device {
    /// What status and logs say while the GPIO chip is missing or gone.
    static func gpioFaultMessage(_ failure: GPIOError, chip: String) -> String {
        "waiting for GPIO \(chip), no button or LEDs until it is there: \(failure)"
    }
}

extension GPIOConnector {
    /// The simulated board, whose chip tests can remove and restore.
    static func simulated(_ simulator: SimulatedGPIO) -> GPIOConnector {
        GPIOConnector(
            chipDescription: "simulated chip",
            connect: { () throws(GPIOError) in try simulator.connect() },
            watchChips: {
                let watch = simulator.watchChip()
                return ChipWatch(changes: watch.changes, stop: watch.stop)
            },
            onlyAChipChangeHelps: { _ in true })
    }
}

extension String {
    func replacingOccurrences(_ target: Character, _ replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
