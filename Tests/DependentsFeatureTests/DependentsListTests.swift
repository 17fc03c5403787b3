import CheckInModels
import CheckInStoreClient
import DependentsClient
import DependentsFeature
import MQTTClient
import TestSupport
import UplinkClient
import XCTest

/// The list itself: adding by code, removing, sorting (kept in the store), errors, and the polled
/// sources (the backend, healthchecks).
final class DependentsListTests: DependentsTestCase {
    func testAddingByCodeStoresThemSubscribesAndRefusesDuplicatesAndMissingSources() async {
        let store = makeStore()
        await appear(store, stored: [])
        let code = PairingCode(source: .mqtt(baseTopic: "lifesignal/mum"), name: "Margaret", heartbeat: .seconds(90))
        store.send(.add(code, name: "Mum"))
        let mum = DependentEntry(name: "Mum", source: .mqtt(baseTopic: "lifesignal/mum"), heartbeat: .seconds(90))
        await store.receive(.added(mum, nil)) {
            $0.dependents = [Dependent(entry: mum)]
            $0.lastOutcome = "added Mum"
        }
        await store.receive(.delegate(.subscriptionsChanged(["lifesignal/mum/availability", "lifesignal/mum/state"])))
        await store.receive(.delegate(.contactsUpdated))
        XCTAssertEqual(stored.contents.withLock { $0.entries }, [mum])

        store.send(.add(code, name: "mum"))

        await receiveError(store, "Mum is already a dependent: choose another name with --name")
        store.send(.add(code, name: "Other"))
        await receiveError(store, "this code is Mum's, who is already a dependent")
        store.send(.add(PairingCode(source: .backend(id: "dev-1"), name: "Gran", heartbeat: .seconds(90)), name: nil))
        await receiveError(store, "the code is for the LifeSignal backend, and this device has no [uplink]: add [uplink] to its config")
        stored.failure.withLock { $0 = StoreFailure(.full, "the disk is full") }
        let grandpa = PairingCode(source: .mqtt(baseTopic: "lifesignal/grandpa"), name: "Grandpa", heartbeat: .seconds(90))
        store.send(.add(grandpa, name: nil))
        await store.receive(.added(DependentEntry(name: "Grandpa", source: grandpa.source, heartbeat: .seconds(90)),
                                   StoreFailure(.full, "the disk is full")))
        await receiveError(store, "Grandpa was not added: the disk is full")
        XCTAssertEqual(store.state.dependents.map(\.entry.name), ["Mum"])
        await stop(store)
    }

    func testAnMQTTCodeOnAWatcherWithoutABrokerIsRefused() async {
        let store = makeStore(mqtt: false)
        await appear(store, stored: [])
        store.send(.add(PairingCode(source: .mqtt(baseTopic: "lifesignal/mum"), name: "Mum", heartbeat: .seconds(90)), name: nil))
        await receiveError(store, "the code is for MQTT, and this device has no [mqtt] broker: add [mqtt] to its config")
        await stop(store)
    }

    func testRemovingForgetsThemButNotThoseInTheConfig() async {
        let store = makeStore(configured: [Self.dad])
        await appear(store, stored: [Self.mum])
        store.send(.remove(name: "dad"))
        await receiveError(store, "Dad is in the config file ([dependents.<name>]): remove them there and restart")
        store.send(.remove(name: "Gran"))
        await receiveError(store, "no dependent is called \"Gran\"; there are: Dad, Mum")
        store.send(.remove(name: "mum"))
        await store.receive(.removed(name: "Mum", nil)) {
            $0.dependents = [Dependent(entry: Self.dad)]
            $0.lastOutcome = "removed Mum"
        }
        await store.receive(.delegate(.subscriptionsChanged(["lifesignal/dad/availability", "lifesignal/dad/state"])))
        await store.receive(.delegate(.contactsUpdated))
        XCTAssertEqual(stored.contents.withLock { $0.entries }, [])
        await stop(store)
    }

    func testTheSortOptionOrdersTheListAndIsKeptAndAFailedSaveSaysSo() async {
        let store = makeStore(configured: [Self.dad])
        await appear(store, stored: [Self.mum])
        store.send(.peerMessage(state("lifesignal/dad", phase: "checked_in", deadline: "2026-11-22T20:00:00.000Z"))) {
            $0.dependents[0].report = DependentReport(status: .checkedIn, lastCheckIn: Self.lastCheckIn,
                                                      deadline: WallTime(iso8601: "2026-11-22T20:00:00.000Z")!)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .checkedIn
        }
        store.send(.peerMessage(state("lifesignal/mum", phase: "reminder"))) {
            $0.dependents[1].report = self.report(.reminder)
            $0.dependents[1].heardAt = Self.start.wall
            $0.dependents[1].status = .reminder
        }
        XCTAssertEqual(store.state.sorted.map(\.entry.name), ["Mum", "Dad"], "loudest first")
        store.send(.setSortOption(.deadline)) { $0.sortOption = .deadline }
        await store.receive(.sortOptionSaved(nil)) { $0.lastOutcome = "sorted by deadline" }
        XCTAssertEqual(store.state.sorted.map(\.entry.name), ["Dad", "Mum"], "nearest deadline first")
        XCTAssertEqual(stored.contents.withLock { $0.sortOption }, .deadline)
        stored.failure.withLock { $0 = StoreFailure(.readOnly, "the store is read-only") }
        store.send(.setSortOption(.name)) { $0.sortOption = .name }
        await store.receive(.sortOptionSaved(StoreFailure(.readOnly, "the store is read-only")))
        await receiveError(store, "the sort order is used but was not saved (it is lost at a restart): the store is read-only")
        await stop(store)
    }

    func testAStoreThatCannotBeReadStillWatchesTheConfiguredDependents() async {
        let store = makeStore(configured: [Self.dad])
        stored.failure.withLock { $0 = StoreFailure(.corrupt, "the store is damaged") }
        store.send(.onAppear) {
            $0.isLoading = true
            $0.watchingSince = Self.start.uptime
        }
        await store.receive(.loaded(.failure(StoreFailure(.corrupt, "the store is damaged")))) {
            $0.isLoading = false
            $0.isLoaded = true
            $0.dependents = [Dependent(entry: Self.dad)]
            $0.error = "the dependents added by code could not be read: the store is damaged"
        }
        await store.receive(.delegate(.subscriptionsChanged(["lifesignal/dad/availability", "lifesignal/dad/state"])))
        await store.receive(.delegate(.contactsUpdated))
        await store.receive(.pollDue)
        await stop(store)
    }
}
