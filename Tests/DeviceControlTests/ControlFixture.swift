import CheckInModels
import CheckInStoreClient
import Clocks
import ComposableCore
import ControlProtocol
import DeviceClock
import DeviceConfig
import DeviceControl
import DeviceFeature
import GPIOClient
import LEDDriver
import Synchronization
import TestSupport

/// A control handler over the device feature's store, with a state the test sets, a fake store,
/// LED lines that record what is written, and every other dependency failing the test if called.
@MainActor
final class ControlFixture {
    static let now = ReducerTestCase.start
    let configuration: DeviceConfiguration
    let clock = TestClock<Duration>()
    let checkIns = FakeCheckInStore(settings: StoredSettings(settings: .default, version: 1, appliedFromConfig: nil))
    /// What the clients were asked and what the LED lines show, shared with their closures.
    final class Recorded: Sendable {
        let historyLimits = Mutex<[Int]>([])
        let lit = Mutex<[Bool]>([false, false, false])
    }

    let recorded = Recorded()
    /// The limits `history` was read with.
    var historyLimits: [Int] { recorded.historyLimits.withLock { $0 } }
    /// What the LED lines show.
    var lit: [Bool] { recorded.lit.withLock { $0 } }
    let store: Store<DeviceFeature>
    let leds: LEDDriver
    let reporter: StatusReporter
    let handler: ControlHandler
    var storeClients: StoreClients

    init(gpioBackend: String = "libgpiod", adjust: (inout DeviceFeature.State) -> Void = { _ in },
         stores: (inout StoreClients, FakeCheckInStore) -> Void = { _, _ in }) {
        UnexpectedCall.failTests()
        configuration = DeviceConfiguration(storePath: "/nonexistent/store.sqlite", controlSocket: "/nonexistent/control.sock")
        var dependencies = DeviceDependencies.failing
        dependencies.clock = .driven(by: clock, startingAt: Self.now)
        var clients = StoreClients.failing
        clients.checkIns = checkIns.client
        clients.checkIns.history = { [recorded, checkIns] limit in
            recorded.historyLimits.withLock { $0.append(limit) }
            return Array(checkIns.records.prefix(limit))
        }
        clients.alertQueue.depth = { 0 }
        stores(&clients, checkIns)
        storeClients = clients
        dependencies.store = clients
        var state = DeviceFeature.initialState(configuration, chipDescription: "chip 'gpiochip0'")
        adjust(&state)
        store = Store(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
        let recorded = recorded
        leds = LEDDriver(language: configuration.ledLanguage, setLED: { index, on in recorded.lit.withLock { $0[index] = on } },
                         monotonicNow: { .zero }, sleep: { _ in try await Task.sleep(for: .seconds(3600)) }, report: { _ in })
        reporter = StatusReporter(clock: dependencies.clock, store: clients, leds: leds, gpioBackend: gpioBackend,
                                  hasBackend: false)
        let waiters = ActionWaiters<DeviceFeature.Action>()
        store.observe { _, action in waiters.deliver(action) }
        handler = ControlHandler(store: store, waiters: waiters,
                                 context: ControlContext(clock: dependencies.clock, store: clients, reports: reporter, simulatePress: nil))
    }

    /// Sends `request` as one line, as the control socket does, and decodes the answer.
    func answer(_ request: ControlRequest) async throws -> ControlResponse {
        try await answer(line: ControlCoding.encode(request))
    }

    func answer(line: String) async throws -> ControlResponse {
        try ControlCoding.decode(ControlResponse.self, from: await handler.handle(line)).get()
    }
}
