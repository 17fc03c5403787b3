import CheckInModels
import CheckInStoreClient
import DependentsFeature
import MQTTClient
import TestSupport
import XCTest

/// A watcher with an MQTT id of its own registers with each person's device it follows over MQTT
/// (retained, at each start and when added), signs its commands, clears its registration when it
/// stops following, and shows when their device removed it (and registers again once allowed).
final class DependentsRegistrationTests: DependentsTestCase {
    static let registration = MQTTMessage(topic: "lifesignal/mum/watchers/kitchen-1", payload: #"{"name":"Anna"}"#, retain: true)

    func testItRegistersAtTheStartSignsItsCommandsAndClearsItsRegistrationWhenRemoved() async {
        let store = makeStore(watcherID: "kitchen-1")
        stored.contents.withLock { $0 = StoredDependents(entries: [Self.mum]) }
        store.send(.onAppear) {
            $0.isLoading = true
            $0.watchingSince = Self.start.uptime
        }
        await store.receive(.loaded(.success(StoredDependents(entries: [Self.mum])))) {
            $0.isLoading = false
            $0.isLoaded = true
            $0.dependents = [Dependent(entry: Self.mum)]
        }
        await store.receive(.delegate(.subscriptionsChanged(["lifesignal/mum/availability", "lifesignal/mum/state",
                                                             "lifesignal/mum/watchers/kitchen-1"])))
        await store.receive(.delegate(.contactsUpdated))
        await store.receive(.pollDue)
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0 }, [Self.registration])

        store.send(.ping(name: "Mum"))
        await store.receive(.pingSent(name: "Mum", failure: nil)) {
            $0.dependents[0].pingSentAt = Self.start.wall
            $0.lastOutcome = "pinged Mum"
        }
        XCTAssertEqual(published.messages.withLock { $0.last },
                       MQTTMessage(topic: "lifesignal/mum/cmd/ask_if_ok", payload: #"{"name":"Anna","watcher":"kitchen-1"}"#,
                                   retain: false))

        // Their device removed this watcher: shown, and not registered again over their word.
        let removal = MQTTInboundMessage(topic: "lifesignal/mum/watchers/kitchen-1",
                                         payload: Array(#"{"name":"Anna","removed":true}"#.utf8), retained: true)
        store.send(.peerMessage(removal)) { $0.dependents[0].removedByThem = true }
        XCTAssertTrue(store.state.dependents[0].shownProblem?.contains("removed this watcher") ?? false)
        // Allowed again: their device clears it, and this watcher registers again.
        store.send(.peerMessage(MQTTInboundMessage(topic: "lifesignal/mum/watchers/kitchen-1", payload: []))) {
            $0.dependents[0].removedByThem = false
        }
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0.last }, Self.registration)

        store.send(.remove(name: "Mum"))
        await store.receive(.removed(name: "Mum", nil)) {
            $0.dependents = []
            $0.lastOutcome = "removed Mum"
        }
        await store.receive(.delegate(.subscriptionsChanged([])))
        await store.receive(.delegate(.contactsUpdated))
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0.last },
                       MQTTMessage(topic: "lifesignal/mum/watchers/kitchen-1", payload: "", retain: true))
        await stop(store)
    }
}
