public import DeviceConfig
import Synchronization
public import DeviceLogging
public import Logging
public import ServiceTree
import Glibc
public import DeviceLive
public import GPIOSimulated
import SimulatorTerminal
public import DeviceFeature

/// lifesignald's life: the log, the live dependencies, the device, and every long-running part as
/// a service in one tree, started in order and shut down in reverse on SIGTERM/SIGINT.
public enum Daemon {
    /// Runs until SIGTERM/SIGINT (or `q` in the terminal view); returns the process exit code.
    /// `sleep` is the executor's sleep, whose cancelled sleeps free their memory at once.
    public static func run(
        _ loaded: ConfigurationFile.Loaded, environment: [String: String],
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) async -> Int32 {
        let sink = LogSink()
        let logger = makeLogger(loaded.configuration, environment: environment, sink: sink)
        logger.info("configuration: \(loaded.path ?? "embedded defaults (no config file)")")
        // Said at every start: a device that can reach nobody must never look as if it could.
        for finding in loaded.configuration.reachFindings {
            logger.warning("\(finding.message); \(finding.fix)", metadata: ["reach": "\(finding.check)"])
        }
        let daemon: Instance
        do {
            daemon = try await make(loaded.configuration, environment: environment, sleep: sleep, logger: logger, sink: sink)
        } catch {
            logger.critical("\(error.message)")
            SystemdNotifyOnce.startFailed(error.message, environment: environment)
            return error.exitCode
        }
        do {
            try await daemon.tree.run()
        } catch let error as StartupError {
            logger.critical("\(error.message)")
            SystemdNotifyOnce.startFailed(error.message, environment: environment)
            return error.exitCode
        } catch {
            logger.critical("lifesignald failed: \(error)")
            return 70  // EX_SOFTWARE
        }
        logger.notice("lifesignald stopped")
        return 0
    }

    /// The daemon as built, not yet running: `tree.run()` runs it until SIGTERM/SIGINT or
    /// `tree.triggerGracefulShutdown()` (the benchmark runs it in-process that way).
    public struct Instance: Sendable {
        public let device: Device
        public let resources: Resources
        public let tree: ServiceTree
    }

    /// What the device holds besides its dependencies: the simulated board (the terminal view,
    /// `sim press`), and what must be let go last at shutdown (the store, the HTTP threads).
    public struct Resources: Sendable {
        public var simulator: SimulatedGPIO?
        public var close: @Sendable () async -> Void

        public init(simulator: SimulatedGPIO?, close: @escaping @Sendable () async -> Void) {
            self.simulator = simulator
            self.close = close
        }
    }

    /// Builds the live dependencies, the device and its service tree, exactly as the daemon runs.
    public static func make(
        _ configuration: DeviceConfiguration, environment: [String: String],
        sleep: (@Sendable (Duration) async throws -> Void)?, logger: Logger, sink: LogSink
    ) async throws(StartupError) -> Instance {
        let live = try LiveDevice.make(configuration, logger: logger, sleep: sleep)
        return await make(configuration, dependencies: live.dependencies,
                          resources: Resources(simulator: live.simulator, close: live.close),
                          environment: environment, logger: logger, sink: sink)
    }

    /// The device and its service tree over any dependencies: the daemon's live ones, or a test's.
    public static func make(
        _ configuration: DeviceConfiguration, dependencies: DeviceDependencies, resources: Resources,
        environment: [String: String], logger: Logger, sink: LogSink
    ) async -> Instance {
        var simulatePress: (@Sendable (Duration) async -> Void)?
        if let simulator = resources.simulator {
            simulatePress = { hold in _ = await simulator.press(hold: hold) }
        }
        // A low battery stops the daemon as SIGTERM does: the tree exists only after the device.
        let stop = StopTrigger()
        var dependencies = dependencies
        dependencies.requestStop = { stop.fire() }
        let device = await Device(configuration: configuration, dependencies: dependencies, logger: logger,
                                  simulatePress: simulatePress, simulator: resources.simulator)
        let tree = ServiceTree(
            services: await services(configuration, resources: resources, device: device, sleep: dependencies.clock.sleep,
                                     environment: environment, sink: sink, logger: logger),
            shutdownSignals: [SIGTERM, SIGINT], logger: logger)
        stop.set { [weak tree] in tree?.triggerGracefulShutdown() }
        return Instance(device: device, resources: resources, tree: tree)
    }

    /// One line per event on stderr, with journald priorities under systemd.
    public static func makeLogger(_ configuration: DeviceConfiguration, environment: [String: String], sink: LogSink) -> Logger {
        let journal = environment["JOURNAL_STREAM"] != nil
        let level = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        return Logger(label: "lifesignald") { label in
            DeviceLogHandler(label: label, level: level, journal: journal, sink: sink)
        }
    }

    /// The service tree, in start order (shutdown runs it backwards): the store first and last,
    /// then the GPIO lines and the LEDs, the device itself, the uplink's parts, the watchers,
    /// the terminal view, the control socket, and systemd's notifications.
    @MainActor
    static func services(
        _ configuration: DeviceConfiguration, resources: Resources, device: Device,
        sleep: @escaping @Sendable (Duration) async throws -> Void, environment: [String: String], sink: LogSink, logger: Logger
    ) -> [any Service] {
        let store = device.store
        let (ready, isReady) = AsyncStream<Void>.makeStream()
        var services: [any Service] = [
            ResourcesService(resources: resources),
            FeatureService(name: "gpio", store: store, start: .gpio(.start), stop: .gpio(.stop)),
            LEDService(leds: device.leds, buzzer: device.buzzer, store: store),
            CoreService(store: store),
            FeatureService(name: "wall-clock", store: store, start: .watchWallClock, stop: nil),
        ]
        // The uplink's parts that are configured, each with the lifetime of a service.
        let state = store.state
        let uplinkParts: [(String, DeviceFeature.Action, DeviceFeature.Action, Bool)] = [
            ("check-in-upload", .checkInUpload(.start), .checkInUpload(.stop), state.checkInUpload != nil),
            ("alert-upload", .alertUpload(.start), .alertUpload(.stop), state.alertUpload != nil),
            ("ping-response-upload", .pingResponseUpload(.start), .pingResponseUpload(.stop), state.pingResponseUpload != nil),
            ("healthchecks-upload", .healthchecksUpload(.start), .healthchecksUpload(.stop), state.healthchecksUpload != nil),
            ("backend-heartbeat", .backendHeartbeat(.start), .backendHeartbeat(.stop), state.backendHeartbeat != nil),
            ("healthchecks-heartbeat", .healthchecksHeartbeat(.start), .healthchecksHeartbeat(.stop),
             state.healthchecksHeartbeat != nil),
            ("ping-listener", .pingListener(.start), .pingListener(.stop), state.pingListener != nil),
            ("settings-sync", .settingsSync(.start), .settingsSync(.stop), state.settingsSync != nil),
            ("healthchecks-alert-upload", .healthchecksAlertUpload(.start), .healthchecksAlertUpload(.stop),
             state.healthchecksAlertUpload != nil),
            ("healthchecks-sync", .healthchecksSync(.start), .healthchecksSync(.stop), state.healthchecksSync != nil),
            ("event-upload", .eventUpload(.start), .eventUpload(.stop), state.eventUpload != nil),
            ("healthchecks-event-upload", .healthchecksEventUpload(.start), .healthchecksEventUpload(.stop),
             state.healthchecksEventUpload != nil),
        ]
        for (name, start, stop, configured) in uplinkParts where configured {
            services.append(FeatureService(name: name, store: store, start: start, stop: stop))
        }
        if state.mqtt != nil {
            services.append(MQTTService(store: store))
        }
        if configuration.uplink != nil || configuration.healthchecks != nil || configuration.mqtt != nil {
            services.append(FeatureService(name: "network", store: store, start: .watchNetwork, stop: nil))
        }
        if let simulator = resources.simulator, wantsTerminal(configuration) {
            services.append(TerminalService(simulator: simulator, configuration: configuration, device: device,
                                            useColor: environment["NO_COLOR"] == nil, logSink: sink))
        }
        let readyLine: Logger.Metadata = [
            "store": "\(configuration.storePath)", "socket": "\(configuration.controlSocket)",
            "gpio": "\(configuration.gpio.backend.rawValue)",
            "uplink": "\(configuration.uplink?.url ?? "none (offline device)")",
            "mqtt": "\(state.mqtt.map { "\($0.broker) as \($0.identity.baseTopic)" } ?? "none")",
        ]
        services.append(ControlSocketService(server: device.control, ready: isReady,
                                             onReady: { logger.notice("lifesignald ready", metadata: readyLine) }))
        let systemd = SystemdChannel(environment: environment, logger: logger)
        services.append(SystemdService(channel: systemd, device: device, ready: ready))
        if let channel = systemd.channel, let interval = systemd.watchdogInterval {
            services.append(WatchdogService(channel: channel, interval: interval, sleep: sleep))
        }
        return services
    }

    /// The terminal view: simulated GPIO, and a terminal to draw in (or `[simulator] terminal = "on"`).
    static func wantsTerminal(_ configuration: DeviceConfiguration) -> Bool {
        configuration.gpio.backend == .simulated
            && (configuration.simulator.terminal == .on
                || (configuration.simulator.terminal == .auto && SimulatorTerminal.isInteractive()))
    }
}

/// Stops the tree once it exists (set after it is made), from wherever the device asks.
final class StopTrigger: Sendable {
    private let action = Mutex<(@Sendable () -> Void)?>(nil)
    private let fired = Mutex(false)

    func set(_ stop: @escaping @Sendable () -> Void) {
        let early = action.withLock { action in
            action = stop
            return fired.withLock { $0 }
        }
        if early { stop() }
    }

    func fire() {
        fired.withLock { $0 = true }
        action.withLock { $0 }?()
    }
}
