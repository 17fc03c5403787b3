import ControlProtocol
@testable import OperatorCLI
import XCTest

/// `lifesignalctl status` shows the MQTT connection: where, whether it is up, why not, and what
/// waits for the broker; nothing without `[mqtt]`.
final class MQTTStatusTests: XCTestCase {
    func report(state: String, error: String? = nil) -> MQTTReport {
        MQTTReport(broker: "mqtt://homeassistant.local:1883", state: state, lastConnected: nil, unavailableSince: nil,
                   lastError: error, lastErrorKind: error == nil ? nil : "refused", consecutiveFailures: error == nil ? 0 : 3,
                   nextRetry: nil, eventsWaiting: 2, eventsPublishedSinceStart: 5, commandsAccepted: 1, commandsRefused: 1,
                   lastRefusal: "unknown command \"x\"", subscriptionProblem: nil, deviceID: "hall", baseTopic: "lifesignal/hall",
                   discoveryTopic: "homeassistant/device/hall/config", remoteCheckIn: false)
    }

    func testAConnectionItsFailureAndWhatWaitsAreShown() {
        XCTAssertEqual(Formatting.mqtt(report(state: "connected")), [
            "MQTT: mqtt://homeassistant.local:1883 · connected · device hall on lifesignal/hall",
            "  events: 2 waiting for the broker, 5 published since start",
            "  commands: 1 carried out, 1 refused (last: unknown command \"x\")",
        ])
        let refused = Formatting.mqtt(report(state: "waiting_to_retry", error: "refused the connection: not authorised"))
        XCTAssertEqual(refused.first, "MQTT: mqtt://homeassistant.local:1883 · NOT connected · device hall on lifesignal/hall")
        XCTAssertEqual(refused[1], "  last attempt failed (3 in a row): refused the connection: not authorised")
    }
}
