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

    func testItRegistersAtEachConnectionSignsItsCommandsAndOwesTheClearingUntilTheBrokerTakesIt() async {
        let store = makeStore(watcherID: "kitchen-1")
        await appear(store, stored: [Self.mum], subscriptions: ["lifesignal/mum/availability", "lifesignal/mum/state",
                                                                "lifesignal/mum/watchers/kitchen-1"])
        XCTAssertEqual(published.messages.withLock { $0 }, [], "no broker yet: nothing to publish on")
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
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

        // Their device removed this watcher: shown, its pings refused here too, and not registered
        // again over their word at the next connection.
        let removal = MQTTInboundMessage(topic: "lifesignal/mum/watchers/kitchen-1",
                                         payload: Array(#"{"name":"Anna","removed":true}"#.utf8), retained: true)
        store.send(.peerMessage(removal)) { $0.dependents[0].removedByThem = true }
        let problem = "Mum: not sent, their device removed this watcher from its responders: pings and \"I'm on it\" are "
            + "refused there until someone runs `lifesignalctl responders allow` on it"
        store.send(.ping(name: "Mum"))
        await receiveError(store, problem)
        store.send(.brokerConnection(false)) { $0.brokerConnected = false }
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0.count }, 2, "the registration is not sent over their removal")
        // Allowed again (retained: read when it connects): this watcher registers again.
        store.send(.peerMessage(MQTTInboundMessage(topic: "lifesignal/mum/watchers/kitchen-1",
                                                   payload: Array(#"{"allowed":true,"name":"Anna"}"#.utf8), retained: true))) {
            $0.dependents[0].removedByThem = false
        }
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0.last }, Self.registration)

        // Removed here while the broker is away: the clearing is owed, and sent when it is back.
        store.send(.brokerConnection(false)) { $0.brokerConnected = false }
        await removeMumWhileTheBrokerIsAway(store)
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await store.receive(.clearingSent("lifesignal/mum/watchers/kitchen-1")) { $0.owedClearings = [] }
        XCTAssertEqual(published.messages.withLock { $0.last },
                       MQTTMessage(topic: "lifesignal/mum/watchers/kitchen-1", payload: "", retain: true))
        await stop(store)
    }

    func testFollowingSomeoneAgainBeforeTheClearingWentRegistersAndDoesNotClear() async {
        let store = makeStore(watcherID: "kitchen-1")
        await appear(store, stored: [Self.mum], subscriptions: ["lifesignal/mum/availability", "lifesignal/mum/state",
                                                                "lifesignal/mum/watchers/kitchen-1"])
        await removeMumWhileTheBrokerIsAway(store)
        store.send(.added(Self.mum, nil)) {
            $0.dependents = [Dependent(entry: Self.mum)]
            $0.lastOutcome = "added Mum"
            $0.owedClearings = []
        }
        await store.receive(.delegate(.subscriptionsChanged(["lifesignal/mum/availability", "lifesignal/mum/state",
                                                             "lifesignal/mum/watchers/kitchen-1"])))
        await store.receive(.delegate(.contactsUpdated))
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await store.expectNoAction()
        XCTAssertEqual(published.messages.withLock { $0 }, [Self.registration], "registered, and never cleared after it")
        await stop(store)
    }

    /// Mum, the only dependent, removed with no broker connection: the clearing is owed.
    private func removeMumWhileTheBrokerIsAway(_ store: TestStore<DependentsFeature>) async {
        store.send(.remove(name: "Mum"))
        await store.receive(.removed(name: "Mum", nil)) {
            $0.dependents = []
            $0.lastOutcome = "removed Mum"
            $0.owedClearings = ["lifesignal/mum/watchers/kitchen-1"]
        }
        await store.receive(.delegate(.subscriptionsChanged([])))
        await store.receive(.delegate(.contactsUpdated))
    }
}
