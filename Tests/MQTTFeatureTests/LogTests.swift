import ComposableCore
import MQTTClient
import MQTTFeature
import TestSupport
import XCTest

/// What the operator reads: a connection (and a reconnection), each failure with the wait before
/// the next attempt (a warning when a working connection dropped), and every refused command.
final class LogTests: MQTTTestCase {
    func testConnectionsFailuresAndRefusalsAreLoggedAtTheirSeverity() async {
        var before = MQTTFeature.State(identity: Self.identity, broker: "mqtt://broker.test:1883", isOnlyWayToReachAnyone: false)
        before.connection = .connected
        var after = before
        after.connection = .waitingToRetry
        after.consecutiveFailures = 1
        after.lastFailure = MQTTFailure(.lost, "the connection to mqtt://broker.test:1883 was lost")
        after.retryDelay = .seconds(2)
        XCTAssertEqual(MQTTFeature.log(.connection(.connectionLost(after.lastFailure!)), before: before, after: after), [
            LogEntry(.warning, "lost the MQTT connection: the connection to mqtt://broker.test:1883 was lost; trying again in 2s",
                     metadata: ["failures": "1"]),
        ])

        var again = after
        again.connection = .connected
        again.consecutiveFailures = 0
        XCTAssertEqual(MQTTFeature.log(.connection(.connected), before: after, after: again), [
            LogEntry(.notice, "connected to mqtt://broker.test:1883 again: Home Assistant discovery on "
                     + "homeassistant/device/hall/config, state on lifesignal/hall/state"),
        ])

        var refused = again
        refused.commandsRefused = 1
        refused.lastRefusal = "unknown command \"x\""
        XCTAssertEqual(MQTTFeature.log(.message(message("x")), before: again, after: refused), [
            LogEntry(.warning, "MQTT command refused: unknown command \"x\""),
        ])
        XCTAssertEqual(MQTTFeature.log(.deviceChanged(Self.checkedIn), before: again, after: again), [], "state changes are not news")
    }
}
