import MQTTClient
import TestSupport
import XCTest

/// The MQTT interface: the failing test value reports every call, and an inbound payload is text
/// only when it is valid UTF-8.
final class MQTTClientTests: XCTestCase {
    func testTheFailingClientReportsEveryCall() async {
        let client = MQTTClient.failing()
        let messages = await unexpectedCalls {
            await client.connect(MQTTConnectOptions(will: nil))
            _ = client.connectionEvents()
            _ = client.messages()
            _ = await client.publish(MQTTMessage(topic: "t", payload: "p", retain: false))
            _ = await client.subscribe(["t"])
            await client.disconnect()
        }
        let names = ["connect", "connectionEvents", "messages", "publish", "subscribe", "disconnect"].map { "MQTTClient.\($0)" }
        XCTAssertEqual(messages.count, names.count, "\(messages)")
        for (message, name) in zip(messages, names) { XCTAssertTrue(message.contains(name), message) }
    }

    func testAnInboundPayloadIsTextOnlyWhenItIsUTF8() {
        XCTAssertEqual(MQTTInboundMessage(topic: "t", payload: Array("PRESS".utf8)).text, "PRESS")
        XCTAssertNil(MQTTInboundMessage(topic: "t", payload: [0xFF, 0xFE]).text)
        XCTAssertEqual(MQTTInboundMessage(topic: "t", payload: [], size: 9000).size, 9000)
    }
}
