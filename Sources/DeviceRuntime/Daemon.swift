import DeviceConfig
import DeviceClock
import DeviceClockLive
import Glibc
import Logging
import ServiceLifecycle
import SimulatorTerminal

/// lifesignald's life: log set-up, the device as a service, clean shutdown on SIGTERM/SIGINT.
public enum Daemon {
    /// Runs until SIGTERM/SIGINT; returns the process exit code. `sleep` is the clock's sleep
    /// (lifesignald passes its executor's, whose cancelled sleeps free their memory at once).
    public static func run(
        _ loaded: ConfigurationLoader.Loaded, environment: [String: String],
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) async -> Int32 {
        let configuration = loaded.configuration
        let sink = LogSink()
        let journal = environment["JOURNAL_STREAM"] != nil
        let level = Logger.Level(rawValue: configuration.logLevel.rawValue) ?? .info
        let logger = Logger(label: "lifesignald") { label in
            DeviceLogHandler(label: label, level: level, journal: journal, sink: sink)
        }
        logger.info("configuration: \(loaded.path ?? "embedded defaults (no config file)")")

        let wantsTerminal = configuration.gpio.backend == .simulated
            && (configuration.simulator.terminal == .on
                || (configuration.simulator.terminal == .auto && SimulatorTerminal.isInteractive()))
        let notifications = await ServiceManagerNotifications(environment: environment, logger: logger)
        let service = DeviceService(configuration: configuration, logger: logger, sink: sink,
                                    terminal: wantsTerminal, useColor: environment["NO_COLOR"] == nil,
                                    notifications: notifications, sleep: sleep)
        let group = ServiceGroup(configuration: .init(
            // The service returns on its own after `q` in the terminal or a start-up failure: that ends the daemon.
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger
        ))
        do {
            try await group.run()
        } catch {
            logger.critical("lifesignald failed: \(error)")
            return 70  // EX_SOFTWARE
        }
        return await service.exitCode.value
    }
}

/// The device as a swift-service-lifecycle service: build, start, wait for shutdown, stop.
///
/// Errors are caught here and turned into an exit code: an error thrown out of `run()` ends the
/// process with SIGILL instead of an ordinary failure systemd can act on.
struct DeviceService: Service {
    let configuration: DeviceConfiguration
    let logger: Logger
    let sink: LogSink
    let terminal: Bool
    let useColor: Bool
    let notifications: ServiceManagerNotifications
    let sleep: (@Sendable (Duration) async throws -> Void)?
    let exitCode = ExitCodeBox()

    func run() async throws {
        // `q` in the terminal view stops the daemon like SIGTERM does.
        let (quit, quitRequested) = AsyncStream<Void>.makeStream()
        let view = terminal
            ? Device.TerminalView(useColor: useColor, logSink: sink, onQuit: { quitRequested.yield() })
            : nil
        let device: Device
        do {
            device = try await MainActor.run { () throws(StartupError) -> Device in
                try Device(configuration: configuration, clock: .live(sleep: sleep), logger: logger)
            }
        } catch {
            return await startFailed(error)
        }
        do {
            try await device.start(terminalView: view)
        } catch {
            await startFailed(error)
            // What had started before the failure (the feature's effects, the uplink's threads, the
            // terminal's raw mode) stops too, instead of running on until the process exits.
            return await device.stop()
        }
        await notifications.deviceStarted(device)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await gracefulShutdown() }
            group.addTask { for await _ in quit { return } }
            await group.next()
            group.cancelAll()
        }
        await notifications.stopping()
        await device.stop()
    }

    private func startFailed(_ error: any Error) async {
        let failure = error as? StartupError ?? StartupError(exitCode: 70, "\(error)")
        logger.critical("\(failure.message)")
        await notifications.startFailed(failure.message)
        await exitCode.set(failure.exitCode)
    }
}

extension DeviceService: CustomStringConvertible {
    /// What swift-service-lifecycle logs for the service: never the configuration, which holds
    /// secrets (a healthchecks ping URL lets anyone ping the check).
    var description: String { "DeviceService" }
}

actor ExitCodeBox {
    private(set) var value: Int32 = 0
    func set(_ code: Int32) { value = code }
}
