import CheckInModels
import CheckInStoreClient
import Clocks
import DeviceClock
import DeviceFeature
import GPIOClient
import GPIOSimulated
import Synchronization
import TestSupport

/// The production graph's dependencies as test clients: every dependency fails the test if it is
/// called, except the ones a device needs to start and take a press, which are TestSupport's
/// in-memory stores, the simulated board (debounced on an instant clock) and a test clock.
@MainActor
struct TestClientGraph {
    let clock = TestClock<Duration>()
    let checkIns = FakeCheckInStore(settings: StoredSettings(settings: .default, version: 1, appliedFromConfig: nil))
    let board: SimulatedGPIO
    let dependencies: DeviceDependencies

    init(start: DeviceInstant) {
        let press = InstantClock()
        let board = SimulatedGPIO(ledCount: 3, debounce: .milliseconds(20), chatter: .none,
                                  monotonicNow: { press.now }, sleep: { try await press.sleep($0) })
        let ids = Mutex<UInt64>(0)
        var dependencies = DeviceDependencies.failing
        dependencies.clock = .driven(by: clock, startingAt: start)
        dependencies.newID = { ids.withLock { $0 += 1; return CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | $0) } }
        dependencies.gpio = .holding(.simulated(board), initial: board.client)
        dependencies.store.checkIns = checkIns.client
        dependencies.store.alerts = FakeAlertStore().client
        dependencies.store.powerEvents = FakePowerEventStore().client
        dependencies.store.responders.removedWatchers = { [] }
        dependencies.store.alertQueue.depth = { 0 }
        dependencies.store.notifications.load = {
            NotificationSnapshot(notifications: [], preferences: NotificationPreferences(), pendingChangeCount: 0)
        }
        dependencies.store.maintenance.probe = { StoreProbeReport() }
        dependencies.wallClock = WallClockChangesClient(changes: { nil })
        self.board = board
        self.dependencies = dependencies
    }
}
