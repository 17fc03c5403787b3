import CheckInModels
import CheckInStoreClient
public import CheckInStoreLive
import DependentsClient
import RespondersClient
import DeviceClock
import DeviceClockLive
public import DeviceConfig
public import DeviceFeature
import GPIOClient
public import GPIOSimulated
import LinuxIO
public import Logging
import MQTTClient
public import MQTTLive
import UplinkClient
public import UplinkLive

/// The device's live dependencies, built from its configuration, with the resources that must be
/// let go at shutdown (the store thread, the uplink's transports).
///
/// Building it does what must fail early with the right exit code: the token file is read (78),
/// libcurl is loaded only when an uplink or healthchecks is configured (69 when it is missing),
/// the configured GPIO lines are requested once (69 for a wrong line name, a busy line or no
/// permission; a missing chip is waited for). Nothing runs until the device starts.
public struct LiveDevice: Sendable {
    public let dependencies: DeviceDependencies
    /// The store's owner: closed last at shutdown.
    public let store: CheckInStoreOwner
    /// The simulated board when `[gpio] backend = "simulated"` (the terminal view, `sim press`).
    public let simulator: SimulatedGPIO?
    /// The uplink's and healthchecks' HTTP threads, shut down at stop.
    public let transports: [CurlTransport]
    /// The MQTT connection's thread (`[mqtt]`), ended at stop.
    public var mqtt: MQTTConnection? = nil

    public static func make(_ configuration: DeviceConfiguration, logger: Logger,
                            sleep: (@Sendable (Duration) async throws -> Void)? = nil) throws(StartupError) -> LiveDevice {
        let clock = DeviceClock.live(synchronization: configuration.developerTrustWallClock ? .always : .system, sleep: sleep)
        if configuration.developerTrustWallClock {
            logger.warning("[developer] trust_wall_clock: the wall clock is taken as synchronised whatever NTP says; never on a device someone relies on")
        }
        if let problem = BootID.current.problem {
            logger.warning("the kernel's boot id is unknown (\(problem)): every start counts as a new boot, so the time since a check-in made before it is known only from a synchronised clock")
        }
        let store: CheckInStoreOwner
        do {
            store = try CheckInStoreOwner(path: configuration.storePath)
        } catch {
            throw .system("check-in store: \(error.message)")
        }
        let (gpio, simulator) = try makeGPIO(configuration, clock: clock, logger: logger)
        var transports: [CurlTransport] = []
        let backend = try makeBackend(configuration.uplink, transports: &transports)
        let (healthchecks, managedChecks) = try makeHealthchecks(configuration.healthchecks, clock: clock, transports: &transports)
        let mqtt = try makeMQTT(configuration.mqtt)
        let dependentSources = try makeDependentSources(configuration, transports: &transports)
        let responderSources = try makeResponderSources(configuration, managedChecks: managedChecks, transports: &transports)
        var dependencies = DeviceDependencies(
            clock: clock,
            random: { Int64.random(in: $0) },
            newID: { CheckInID.random() },
            gpio: gpio,
            store: .live(store),
            backend: backend,
            healthchecks: healthchecks,
            // The system's zone matters when daily windows or quiet hours follow it.
            wallClock: .live(logger: logger, watchSystemZone: configuration.timeZone == nil
                             && (configuration.schedule.daily != nil || configuration.quietHours != nil)),
            network: .live(logger: logger),
            timeZone: .live)
        dependencies.mqtt = mqtt.map { MQTTClient.live($0.connection, deviceID: $0.deviceID) }
        dependencies.hostName = currentHostName() ?? dependencies.hostName
        dependencies.dependentSources = dependentSources
        dependencies.responderSources = responderSources
        var device = LiveDevice(dependencies: dependencies, store: store, simulator: simulator, transports: transports)
        device.mqtt = mqtt?.connection
        return device
    }

    /// Lets go of what `make` took: the HTTP threads (a request in flight is abandoned) and the
    /// store (a final checkpoint, then closed).
    public func close() async {
        mqtt?.close()
        for transport in transports { transport.shutdown() }
        await store.close()
    }

    // MARK: GPIO

    private static func makeGPIO(
        _ configuration: DeviceConfiguration, clock: DeviceClock, logger: Logger
    ) throws(StartupError) -> (GPIOClient, SimulatedGPIO?) {
        switch configuration.gpio.backend {
        case .simulated:
            let simulator = SimulatedGPIO(
                ledCount: configuration.ledLanguage.leds.count,
                debounce: configuration.button.debounce,
                chatter: ChatterModel(edges: configuration.simulator.chatterEdges, span: configuration.simulator.chatterSpan),
                hasBuzzer: configuration.buzzer != nil,
                inputs: (configuration.power.mainsLine != nil ? [.mains] : []) + (configuration.power.lowBatteryLine != nil ? [.lowBattery] : []),
                monotonicNow: clock.uptime,
                sleep: clock.sleep)
            return (.holding(.simulated(simulator), initial: simulator.client), simulator)
        case .libgpiod:
            let connector = GPIOConnector.libgpiod(configuration, logger: logger)
            return (.holding(connector, initial: try GPIOConnector.firstRequest(connector)), nil)
        }
    }

    // MARK: Uplink

    private static func makeBackend(
        _ configuration: UplinkConfiguration?, transports: inout [CurlTransport]
    ) throws(StartupError) -> UplinkClient? {
        guard let configuration else { return nil }
        let token = try deviceToken(configuration)
        let transport: CurlTransport, pollTransport: CurlTransport
        do {
            transport = try CurlTransport()
            // The ping long poll gets a thread of its own, so a held poll never delays an upload.
            pollTransport = try CurlTransport(threadName: "uplink-poll")
        } catch {
            throw .uplink("uplink", error)
        }
        transports += [transport, pollTransport]
        return .live(baseURL: configuration.url, token: token, timeout: configuration.timeout,
                     transport: transport, pollTransport: pollTransport)
    }

    private static func makeHealthchecks(
        _ configuration: HealthchecksConfiguration?, clock: DeviceClock, transports: inout [CurlTransport]
    ) throws(StartupError) -> (HealthchecksClients?, ManagedChecks?) {
        guard let configuration else { return (nil, nil) }
        var managed: ManagedChecks?
        if let management = configuration.management {
            let key: DeviceToken
            do {
                key = try DeviceToken.readHealthchecksAPIKey(path: management.apiKeyFile)
            } catch {
                throw .config(error.message)
            }
            managed = ManagedChecks(site: management.apiURL, key: key, slugPrefix: management.slugPrefix,
                                    timeout: configuration.timeout,
                                    transport: try transport("healthchecks-api", for: "healthchecks", into: &transports))
        }
        // A thread of its own: a slow backend never delays the healthchecks pings, nor the reverse.
        let pings = try transport("healthchecks", for: "healthchecks", into: &transports)
        func client(_ target: PingTarget) -> UplinkClient {
            .healthchecks(target, timeout: configuration.timeout, lateAfter: configuration.lateAfter, now: clock.now,
                          transport: pings)
        }
        func target(_ url: String?, _ role: CheckRole) -> PingTarget? {
            if let managed { return .managed(role, managed) }
            return url.map(PingTarget.url)
        }
        return (HealthchecksClients(checkIns: target(configuration.checkInURL, .checkIn).map(client),
                                    heartbeat: target(configuration.heartbeatURL, .heartbeat).map(client),
                                    alert: target(configuration.alertURL, .alert).map(client),
                                    management: managed?.client),
                managed)
    }
}

extension LiveDevice {
    // MARK: A watcher's polled sources

    /// The backend (with the uplink's token) and healthchecks (with a read-only key) for a
    /// watcher's dependents, each on an HTTP thread of its own; none on a person's device.
    static func makeDependentSources(_ configuration: DeviceConfiguration,
                                     transports: inout [CurlTransport]) throws(StartupError) -> [String: DependentsClient] {
        guard configuration.device.role.watches else { return [:] }
        var sources: [String: DependentsClient] = [:]
        if let uplink = configuration.uplink {
            let token = try deviceToken(uplink)
            sources["backend"] = .backend(baseURL: uplink.url, token: token, timeout: uplink.timeout,
                                          transport: try transport("dependents", for: "dependents", into: &transports))
        }
        if let keyFile = configuration.dependents.healthchecksReadKeyFile {
            let key: DeviceToken
            do {
                key = try DeviceToken.readHealthchecksAPIKey(path: keyFile, content: "a read-only API key of the healthchecks project")
            } catch {
                throw .config(error.message)
            }
            sources["healthchecks"] = .healthchecks(apiURL: configuration.dependents.healthchecksAPIURL, readOnlyKey: key,
                                                    timeout: .seconds(30),
                                                    transport: try transport("dependents-hc", for: "dependents", into: &transports))
        }
        return sources
    }

    /// Where the person's responders are listed: the backend (with the uplink's token, on an HTTP
    /// thread of its own) and the integrations of the device's own healthchecks checks (on the
    /// thread that keeps them in step); none on a watcher, and healthchecks only with an API key.
    static func makeResponderSources(_ configuration: DeviceConfiguration, managedChecks: ManagedChecks?,
                                     transports: inout [CurlTransport]) throws(StartupError) -> [String: RespondersClient] {
        guard configuration.device.role.hasCountdown else { return [:] }
        var sources: [String: RespondersClient] = [:]
        if let uplink = configuration.uplink {
            let token = try deviceToken(uplink)
            sources["backend"] = .backend(baseURL: uplink.url, token: token, timeout: uplink.timeout,
                                          transport: try transport("responders", for: "responders", into: &transports))
        }
        sources["healthchecks"] = managedChecks.map(RespondersClient.healthchecks)
        return sources
    }

    /// The device's bearer token from `[uplink] token_file` (78 when it is unusable).
    fileprivate static func deviceToken(_ uplink: UplinkConfiguration) throws(StartupError) -> DeviceToken {
        do {
            return try DeviceToken.read(path: uplink.tokenFile)
        } catch {
            throw .config(error.message)
        }
    }

    /// An HTTP thread of its own, let go at shutdown with the others.
    fileprivate static func transport(_ threadName: String, for what: String,
                                      into transports: inout [CurlTransport]) throws(StartupError) -> CurlTransport {
        do {
            let transport = try CurlTransport(threadName: threadName)
            transports.append(transport)
            return transport
        } catch {
            throw .uplink(what, error)
        }
    }
}

extension LiveDevice {
    // MARK: MQTT

    /// The broker's connection for `[mqtt]`: the password file read (78 when it is unusable) and
    /// libmosquitto loaded (69 when it is missing), so both fail at start-up, not at the first attempt.
    static func makeMQTT(_ configuration: MQTTConfiguration?) throws(StartupError) -> (connection: MQTTConnection, deviceID: String)? {
        guard let configuration else { return nil }
        let deviceID = configuration.deviceID ?? MQTTDeviceID.derived()
        let settings: MQTTConnectionSettings
        do {
            settings = try MQTTConnectionSettings(configuration, deviceID: deviceID)
        } catch {
            throw .config(error.message)
        }
        let library: LibMosquitto
        do {
            library = try LibMosquitto.shared()
        } catch {
            throw StartupError(exitCode: 69, "mqtt: \(error)")
        }
        do {
            return (try MQTTConnection(settings: settings, library: library), deviceID)
        } catch {
            throw .system("mqtt: \(error)")
        }
    }
}

extension WallClockChangesClient {
    /// The kernel's word when the wall clock is set (`WallClockMonitor`), and with
    /// `watchSystemZone` the system's zone being changed (`timedatectl set-timezone` replaces
    /// /etc/localtime: inotify on /etc, no polling), which moves the local clock the same way.
    static func live(logger: Logger, watchSystemZone: Bool = false) -> WallClockChangesClient {
        WallClockChangesClient(changes: {
            let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            do {
                let monitor = try WallClockMonitor.start { continuation.yield() }
                var zoneWatcher: DirectoryWatcher?
                if watchSystemZone {
                    do {
                        let watcher = try DirectoryWatcher(directory: "/etc", namePrefix: "localtime")
                        zoneWatcher = watcher
                        Task { for await _ in watcher.changes { continuation.yield() } }
                    } catch {
                        logger.warning("a change of the system's time zone will only be noticed at the next phase boundary: \(error)")
                    }
                }
                continuation.onTermination = { [zoneWatcher] _ in
                    monitor.stop()
                    zoneWatcher?.stop()
                }
                return changes
            } catch {
                logger.warning("wall-clock steps will only be noticed at the next event: \(error)")
                return nil
            }
        })
    }
}

extension NetworkChangesClient {
    /// Routes and addresses appearing (`NetworkMonitor`, netlink).
    static func live(logger: Logger) -> NetworkChangesClient {
        NetworkChangesClient(changes: {
            let (changes, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
            do {
                let monitor = try NetworkMonitor.start { continuation.yield() }
                continuation.onTermination = { _ in monitor.stop() }
                return changes
            } catch {
                logger.warning("the network coming back will only be noticed at the next retry: \(error)")
                return nil
            }
        })
    }
}
