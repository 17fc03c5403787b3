import CheckInStoreLive
import ComposableCore
import ControlProtocol
import DeviceConfig
import DeviceFeature
import DeviceLive
@testable import DeviceRuntime
import DeviceLogging
import GPIOSimulated
import Logging
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// The daemon's production graph in this process: the device and its service tree as
/// `lifesignald` builds them (`Daemon.make`), running until `stop()` shuts the group down gracefully.
///
/// Built over the live dependencies from the configuration (`LiveDevice.make`: a real SQLite
/// store, the simulated board, libcurl talking to whatever `[uplink]` names), with only the network
/// watcher the test's, so that a test can say when "the network came back"; or over any
/// dependencies a test gives.
@MainActor
final class RunningDevice {
    let configuration: DeviceConfiguration
    let dependencies: DeviceDependencies
    let instance: Daemon.Instance
    /// The live store's owner, when built from the configuration.
    let storeOwner: CheckInStoreOwner?
    let network: NetworkChanges
    /// Every line the device logged, for failure messages and for tests about what is logged.
    let log: LogLines
    /// Every action the device's store reduced, in order.
    private(set) var actions: [DeviceFeature.Action] = []
    private var running: Task<Void, Never>?
    /// True once the service tree's `run()` has returned: every service has ended.
    private(set) var hasStopped = false

    var device: Device { instance.device }
    var store: Store<DeviceFeature> { device.store }
    var state: DeviceFeature.State { store.state }
    /// The simulated board (these tests always configure the simulated GPIO backend).
    var board: SimulatedGPIO { instance.resources.simulator! }
    /// The store as the device sees it, for reading what it holds.
    var storeClients: StoreClients { dependencies.store }

    /// The live graph from `configuration`; nothing runs until `start()`.
    convenience init(_ configuration: DeviceConfiguration) async throws {
        let log = LogLines(), network = NetworkChanges()
        let (sink, logger) = Self.logging(configuration, into: log)
        let live = try LiveDevice.make(configuration, logger: logger)
        var dependencies = live.dependencies
        dependencies.network = NetworkChangesClient(changes: { network.stream() })
        await self.init(configuration, dependencies: dependencies,
                        resources: Daemon.Resources(simulator: live.simulator, close: live.close),
                        storeOwner: live.store, log: log, network: network, sink: sink, logger: logger)
    }

    /// The graph over `dependencies` (a test's clients); nothing runs until `start()`.
    convenience init(_ configuration: DeviceConfiguration, dependencies: DeviceDependencies, simulator: SimulatedGPIO) async {
        let log = LogLines()
        let (sink, logger) = Self.logging(configuration, into: log)
        await self.init(configuration, dependencies: dependencies, resources: Daemon.Resources(simulator: simulator, close: {}),
                        storeOwner: nil, log: log, network: NetworkChanges(), sink: sink, logger: logger)
    }

    private init(_ configuration: DeviceConfiguration, dependencies: DeviceDependencies, resources: Daemon.Resources,
                 storeOwner: CheckInStoreOwner?, log: LogLines, network: NetworkChanges, sink: LogSink, logger: Logger) async {
        self.configuration = configuration
        self.dependencies = dependencies
        self.storeOwner = storeOwner
        self.log = log
        self.network = network
        instance = await Daemon.make(configuration, dependencies: dependencies, resources: resources,
                                     environment: [:], logger: logger, sink: sink)
        store.observe { [weak self] _, action in self?.actions.append(action) }
    }

    /// The daemon's logger, writing into `log` instead of stderr.
    private static func logging(_ configuration: DeviceConfiguration, into log: LogLines) -> (LogSink, Logger) {
        let sink = LogSink()
        sink.redirect { line in log.append(line) }
        return (sink, Daemon.makeLogger(configuration, environment: [:], sink: sink))
    }

    /// Builds and starts a device, and waits until it answers on its control socket with
    /// everything loaded from the store.
    static func started(_ configuration: DeviceConfiguration, file: StaticString = #filePath,
                        line: UInt = #line) async throws -> RunningDevice {
        let device = try await RunningDevice(configuration)
        do {
            try await device.start(file: file, line: line)
        } catch {
            await device.stop()  // nothing of it may outlive the test
            throw error
        }
        return device
    }

    func start(file: StaticString = #filePath, line: UInt = #line) async throws {
        let tree = instance.tree
        running = Task {
            try? await tree.run()
            hasStopped = true
        }
        try await waitUntil("the device has loaded its store and answers on its socket", file: file, line: line) {
            guard state.checkIn.hasLoadedHistory, state.checkIn.hasLoadedSettings else { return false }
            return (try? await request(ControlRequest(.status)).ok) == true
        }
    }

    /// Shuts the service tree down as SIGTERM does, and waits until every service has ended.
    func stop() async {
        instance.tree.triggerGracefulShutdown()
        await stopped()
    }

    /// Waits until every service has ended, however the shutdown started.
    func stopped() async {
        await running?.value
        running = nil
    }
}

/// What the device logged, collected from its log sink (any thread).
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
    func contains(_ text: String) -> Bool { all.contains { $0.contains(text) } }
}

/// The network watcher under the test's control: `changed()` is "a route or address appeared".
final class NetworkChanges: Sendable {
    private let continuations = Mutex<[AsyncStream<Void>.Continuation]>([])

    func stream() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        continuations.withLock { $0.append(continuation) }
        return stream
    }

    /// Whether the device is watching (its network service has started).
    var isWatched: Bool { !continuations.withLock { $0 }.isEmpty }

    func changed() {
        for continuation in continuations.withLock({ $0 }) { continuation.yield() }
    }
}
