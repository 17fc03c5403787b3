import MQTTClient
import MQTTFeature
import TestSupport
import XCTest

/// What the watcher and the person's device ask of MQTT: a watcher's dependents' topics are
/// subscribed at each connection and when they change, and their messages handed on; a person's
/// device takes `clear_ping` and `on_it` (a name, nothing else).
final class WatcherTopicsTests: MQTTTestCase {
    let peers = ["lifesignal/mum/availability", "lifesignal/mum/state"]

    func testPeerTopicsAreSubscribedWithTheCommandsAndWhenTheyChangeAndTheirMessagesHandedOn() async {
        let store = makeStore()
        store.send(.peerTopicsChanged(peers)) { $0.peerTopics = self.peers }
        await start(store)
        await connect(store)
        XCTAssertEqual(broker.subscriptions.last, ["lifesignal/hall/cmd/+", "lifesignal/hall/watchers/+", "homeassistant/status"] + peers)

        let dad = ["lifesignal/dad/availability", "lifesignal/dad/state"]
        store.send(.peerTopicsChanged(peers + dad)) { $0.peerTopics = self.peers + dad }
        await store.receive(.peersSubscribed(nil))
        XCTAssertEqual(broker.subscriptions.last, dad, "only the new ones")

        let state = MQTTInboundMessage(topic: "lifesignal/mum/state", payload: Array("{}".utf8), retained: true)
        store.send(.message(state))
        await store.receive(.delegate(.peerMessage(state)))
        // A topic nobody asked for is no command and no peer.
        store.send(.message(MQTTInboundMessage(topic: "lifesignal/stranger/state", payload: [])))
        await stop(store)
    }

    func testClearPingAndOnItAreHandedToTheDeviceAndOnItTakesOnlyAName() async {
        let store = makeStore()
        store.send(.message(message("clear_ping"))) { $0.commandsAccepted = 1 }
        await store.receive(.delegate(.clearPing))
        store.send(.message(message("on_it", "Anna"))) { $0.commandsAccepted = 2 }
        await store.receive(.delegate(.onIt("Anna")))
        store.send(.message(message("on_it", ""))) {
            $0.commandsRefused = 1
            $0.lastRefusal = "on_it refused: the payload must be the watcher's name (1 to 64 bytes of text), not \"\""
        }
        store.send(.message(message("on_it", "Anna\u{1B}[2J"))) {
            $0.commandsRefused = 2
            $0.lastRefusal = "on_it refused: the payload must be the watcher's name (1 to 64 bytes of text), not \"Anna\\u001B[2J\""
        }
        store.send(.message(message("clear_ping", "now"))) {
            $0.commandsRefused = 3
            $0.lastRefusal = "clear_ping refused: the payload must be \"PRESS\" or empty, not \"now\""
        }
        await store.finish()
    }

    func testAWatchersRegistrationIsHandedToTheRespondersAndARemovedWatchersCommandsAreRefused() async {
        let store = makeStore()
        let registration = MQTTInboundMessage(topic: "lifesignal/hall/watchers/kitchen-1", payload: Array(#"{"name":"Anna"}"#.utf8),
                                              retained: true)
        store.send(.message(registration))
        await store.receive(.delegate(.watcherMessage(registration)))

        let fromAnna = #"{"watcher":"kitchen-1","name":"Anna"}"#
        store.send(.message(message("ask_if_ok", fromAnna))) { $0.commandsAccepted = 1 }
        await store.receive(.delegate(.askIfOK))
        store.send(.message(message("on_it", fromAnna))) { $0.commandsAccepted = 2 }
        await store.receive(.delegate(.onIt("Anna")))

        store.send(.refusedWatchersChanged(["kitchen-1"])) { $0.refusedWatchers = ["kitchen-1"] }
        let refused = "the watcher kitchen-1 (\"Anna\") was removed from this device's responders; `lifesignalctl responders allow` "
            + "lets it back"
        store.send(.message(message("ask_if_ok", fromAnna))) {
            $0.commandsRefused = 1
            $0.lastRefusal = "ask_if_ok refused: " + refused
        }
        store.send(.message(message("clear_ping", fromAnna))) {
            $0.commandsRefused = 2
            $0.lastRefusal = "clear_ping refused: " + refused
        }
        store.send(.message(message("on_it", fromAnna))) {
            $0.commandsRefused = 3
            $0.lastRefusal = "on_it refused: " + refused
        }
        // Home Assistant's button carries no watcher: still taken.
        store.send(.message(message("ask_if_ok", "PRESS"))) { $0.commandsAccepted = 3 }
        await store.receive(.delegate(.askIfOK))
        // A watcher's word that cannot be read, or an on_it without a name, is refused as such.
        store.send(.message(message("ask_if_ok", #"{"watcher":"a/b"}"#))) {
            $0.commandsRefused = 4
            $0.lastRefusal = "ask_if_ok refused: its watcher id is not 1 to 64 letters, digits, '-', '_' or '.'"
        }
        store.send(.message(message("on_it", #"{"watcher":"phone-2"}"#))) {
            $0.commandsRefused = 5
            $0.lastRefusal = "on_it refused: a watcher's on_it carries its name"
        }
        store.send(.refusedWatchersChanged([])) { $0.refusedWatchers = [] }
        store.send(.message(message("clear_ping", fromAnna))) { $0.commandsAccepted = 4 }
        await store.receive(.delegate(.clearPing))
        await store.finish()
    }
}
