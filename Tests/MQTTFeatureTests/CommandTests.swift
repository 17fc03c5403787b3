import ComposableCore
import MQTTClient
import MQTTFeature
import TestSupport
import XCTest

/// Commands on `<base>/cmd/<name>`: the known ones are handed to the device; remote check-in only
/// where allowed and not in a burst; anything retained, oversized, malformed or unknown is refused
/// with a reason and changes nothing else.
final class CommandTests: MQTTTestCase {
    func testAskIfOKAndIdentifyAreHandedToTheDevice() async {
        let store = makeStore()
        store.send(.message(message("ask_if_ok"))) { $0.commandsAccepted = 1 }
        await store.receive(.delegate(.askIfOK))
        store.send(.message(message("identify", ""))) { $0.commandsAccepted = 2 }
        await store.receive(.delegate(.identify))
        await store.finish()
    }

    func testRemoteCheckInIsRefusedUnlessAllowedAndThenNotTwiceWithinAMinute() async {
        let off = makeStore()
        off.send(.message(message("check_in"))) {
            $0.commandsRefused = 1
            $0.lastRefusal = "check_in refused: remote check-in is off ([mqtt] remote_check_in = false)"
        }
        await off.finish()

        var allowed = Self.identity
        allowed.remoteCheckIn = true
        let store = makeStore(identity: allowed)
        store.send(.message(message("check_in"))) {
            $0.commandsAccepted = 1
            $0.lastRemoteCheckIn = Self.start.uptime
        }
        await store.receive(.delegate(.checkIn))
        await testClock.advance(by: .seconds(59))
        store.send(.message(message("check_in"))) {
            $0.commandsRefused = 1
            $0.lastRefusal = "check_in refused: the last remote check-in was less than 1m ago"
        }
        await testClock.advance(by: .seconds(1))
        store.send(.message(message("check_in"))) {
            $0.commandsAccepted = 2
            $0.lastRemoteCheckIn = Self.start.uptime + .seconds(60)
        }
        await store.receive(.delegate(.checkIn))
        await store.finish()
    }

    func testRemoteAwayIsRefusedUnlessAllowedAndTakesOnlyADurationWhileEndingAwayIsAlwaysTaken() async {
        let off = makeStore()
        off.send(.message(message("away", "3d"))) {
            $0.commandsRefused = 1
            $0.lastRefusal = "away refused: remote away mode is off ([mqtt] remote_away = false)"
        }
        off.send(.message(message("away_end"))) { $0.commandsAccepted = 1 }
        await off.receive(.delegate(.awayEnd))
        await off.finish()

        var allowed = Self.identity
        allowed.remoteAway = true
        let store = makeStore(identity: allowed)
        store.send(.message(message("away", "3d"))) { $0.commandsAccepted = 1 }
        await store.receive(.delegate(.away(.seconds(3 * 86_400))))
        let refusals: [(String, String)] = [("PRESS", "\"PRESS\""), ("91d", "\"91d\""), ("0s", "\"0s\""), ("soon", "\"soon\"")]
        for (index, (payload, shown)) in refusals.enumerated() {
            store.send(.message(message("away", payload))) {
                $0.commandsRefused = index + 1
                $0.lastRefusal = "away refused: the payload must be how long, from 1s to 90d (e.g. 3d or 12h), not \(shown)"
            }
        }
        store.send(.message(message("away", "12h", retained: true))) {
            $0.commandsRefused = 5
            $0.lastRefusal = "away was a retained message, kept by the broker from earlier: a command must be published now and without retain"
        }
        await store.finish()
    }

    func testRetainedOversizedMalformedAndUnknownCommandsAreRefusedWithTheirReason() async {
        var allowed = Self.identity
        allowed.remoteCheckIn = true
        let store = makeStore(identity: allowed)
        let cases: [(MQTTInboundMessage, String)] = [
            (message("check_in", retained: true),
             "check_in was a retained message, kept by the broker from earlier: a command must be published now and without retain"),
            (MQTTInboundMessage(topic: "lifesignal/hall/cmd/ask_if_ok", payload: [], size: 1_000_000),
             "ask_if_ok refused: its payload is 1000000 bytes; a command's is \"PRESS\" or empty"),
            (message("identify", #"{"press":true}"#),
             #"identify refused: the payload must be "PRESS" or empty, not "{"press":true}""#),
            (MQTTInboundMessage(topic: "lifesignal/hall/cmd/identify", payload: [0xFF, 0x00]),
             "identify refused: the payload must be \"PRESS\" or empty, not binary data"),
            (message("self_destruct"),
             #"unknown command "self_destruct" on "lifesignal/hall/cmd/self_destruct"; commands are ask_if_ok, identify, check_in, away, away_end, clear_ping, on_it"#),
        ]
        for (index, (refused, reason)) in cases.enumerated() {
            store.send(.message(refused)) {
                $0.commandsRefused = index + 1
                $0.lastRefusal = reason
            }
        }
        // Messages on other topics are not commands (and not refusals).
        store.send(.message(MQTTInboundMessage(topic: "elsewhere/cmd/check_in", payload: Array("PRESS".utf8))))
        await store.finish()
    }
}
