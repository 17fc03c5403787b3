import CheckInModels
import CheckInStoreClient
import DeviceClock
import PowerFeature
import Synchronization
import TestSupport
import XCTest

/// The mains power going and coming back, a low battery, and a previous run that did not stop
/// cleanly: each an event, stored before anything is said about it, and the run's mark cleared
/// only by a clean stop.
final class PowerFeatureTests: ReducerTestCase {
    final class IDs: Sendable { let next = Mutex<UInt64>(0) }
    let ids = IDs()
    func id(_ n: UInt64) -> CheckInID { CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | n) }

    func makeStore(events: FakePowerEventStore, mains: Bool = true, lowBattery: Bool = false) -> TestStore<PowerFeature> {
        let feature = PowerFeature(store: events.client, clock: makeClock(), newID: { [ids] in
            ids.next.withLock { count in
                count += 1
                return CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | count)
            }
        })
        return TestStore(initialState: PowerFeature.State(watchesMains: mains, watchesLowBattery: lowBattery), reducer: feature)
    }

    func start(_ store: TestStore<PowerFeature>, previous: PreviousRun?) async {
        store.send(.start) { $0.isRunning = true }
        await store.receive(.runMarked(.success(previous))) { $0.runMarked = true }
    }

    /// A clean stop clears the run's mark.
    func stop(_ store: TestStore<PowerFeature>) async {
        store.send(.stopping) { $0.isRunning = false }
        await store.receive(.runUnmarked(nil)) { $0.runMarked = false }
        await store.finish()
    }

    func testMainsLostAndRestoredAreStoredThenToldAndTheBatteryTimeIsSaid() async {
        let events = FakePowerEventStore()
        let store = makeStore(events: events)
        await start(store, previous: nil)
        // The lines are requested: mains present, nothing to tell.
        store.send(.mainsChanged(present: true)) { $0.mainsPresent = true }

        await testClock.advance(by: .seconds(60))
        store.send(.mainsChanged(present: false)) {
            $0.mainsPresent = false
            $0.onBatterySince = Self.start.wall + .seconds(60)
            $0.unsaved = [PowerEvent(id: self.id(1), at: Self.start.advanced(by: .seconds(60)), kind: .onBattery,
                                     detail: "the mains power is off")]
            $0.isStoring = true
        }
        XCTAssertTrue(store.state.onBattery)
        let lost = PowerEvent(id: id(1), at: Self.start.advanced(by: .seconds(60)), kind: .onBattery, detail: "the mains power is off")
        await store.receive(.eventStored(.success(lost))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [lost]
        }
        await store.receive(.delegate(.eventStored(lost)))

        await testClock.advance(by: .seconds(600))
        let restored = PowerEvent(id: id(2), at: Self.start.advanced(by: .seconds(660)), kind: .powerRestored,
                                  detail: "on battery since \((Self.start.wall + .seconds(60)).iso8601)")
        store.send(.mainsChanged(present: true)) {
            $0.mainsPresent = true
            $0.onBatterySince = nil
            $0.unsaved = [restored]
            $0.isStoring = true
        }
        await store.receive(.eventStored(.success(restored))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [lost, restored]
        }
        await store.receive(.delegate(.eventStored(restored)))
        XCTAssertEqual(events.events, [restored, lost])

        await stop(store)
        XCTAssertEqual(events.run?.stoppedCleanly, true)
    }

    func testOnBatteryAtStartIsTold() async {
        let events = FakePowerEventStore()
        let store = makeStore(events: events)
        await start(store, previous: nil)
        let event = PowerEvent(id: id(1), at: Self.start, kind: .onBattery, detail: "the mains power was off when the device started")
        store.send(.mainsChanged(present: false)) {
            $0.mainsPresent = false
            $0.onBatterySince = Self.start.wall
            $0.unsaved = [event]
            $0.isStoring = true
        }
        await store.receive(.eventStored(.success(event))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [event]
        }
        await store.receive(.delegate(.eventStored(event)))
        await stop(store)
    }

    func testARunThatDidNotStopCleanlyIsReportedAtTheNextStart() async {
        let before = DeviceInstant(wall: WallTime(iso8601: "2026-11-21T10:00:00Z")!, uptime: .seconds(5), bootID: "boot-0",
                                   wallClockSynchronized: true)
        let events = FakePowerEventStore(previousRun: PreviousRun(startedAt: before, stoppedCleanly: false))
        let store = makeStore(events: events, mains: false)
        let event = PowerEvent(id: id(1), at: Self.start, kind: .unexpectedRestart,
                               detail: "the run started 2026-11-21T10:00:00.000Z did not stop cleanly: a power cut without a battery, "
                                   + "a crash or a kill")
        store.send(.start) { $0.isRunning = true }
        await store.receive(.runMarked(.success(PreviousRun(startedAt: before, stoppedCleanly: false)))) {
            $0.runMarked = true
            $0.unsaved = [event]
            $0.isStoring = true
        }
        await store.receive(.eventStored(.success(event))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [event]
        }
        await store.receive(.delegate(.eventStored(event)))
        // Without a mains line its level means nothing.
        store.send(.mainsChanged(present: false))
        await stop(store)

        // A clean stop is not reported at the next start.
        let next = makeStore(events: events, mains: false)
        await start(next, previous: PreviousRun(startedAt: Self.start, stoppedCleanly: true))
        await stop(next)
    }

    func testALowBatteryIsStoredThenTheDaemonIsAskedToStopCleanly() async {
        let events = FakePowerEventStore()
        let store = makeStore(events: events, lowBattery: true)
        await start(store, previous: nil)
        store.send(.lowBatteryChanged(low: false))
        let event = PowerEvent(id: id(1), at: Self.start, kind: .lowBattery)
        store.send(.lowBatteryChanged(low: true)) {
            $0.lowBattery = true
            $0.isStopping = true
            $0.unsaved = [event]
            $0.isStoring = true
        }
        await store.receive(.eventStored(.success(event))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [event]
        }
        await store.receive(.delegate(.eventStored(event)))
        // A moment for the event to go out, then the stop.
        await testClock.advance(by: .seconds(10))
        await store.receive(.lowBatteryStopDue)
        await store.receive(.delegate(.stopRequested))
        await stop(store)
    }

    func testAnEventThatCannotBeStoredWaitsForTheStore() async {
        let events = FakePowerEventStore()
        let store = makeStore(events: events)
        await start(store, previous: nil)
        let failure = StoreFailure(.full, "disk full")
        events.failWrites(with: failure)
        let event = PowerEvent(id: id(1), at: Self.start, kind: .onBattery, detail: "the mains power was off when the device started")
        store.send(.mainsChanged(present: false)) {
            $0.mainsPresent = false
            $0.onBatterySince = Self.start.wall
            $0.unsaved = [event]
            $0.isStoring = true
        }
        await store.receive(.eventStored(.failure(failure))) { $0.isStoring = false }
        await store.receive(.delegate(.storeFailed(failure)))
        events.failWrites(with: nil)
        store.send(.storeWritable) { $0.isStoring = true }
        await store.receive(.eventStored(.success(event))) {
            $0.isStoring = false
            $0.unsaved = []
            $0.recent = [event]
        }
        await store.receive(.delegate(.eventStored(event)))
        await stop(store)
    }
}
