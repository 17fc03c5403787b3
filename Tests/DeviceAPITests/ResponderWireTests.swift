import DeviceAPI
import XCTest

/// `GET /v1/responders` on the wire (docs/device-api.yaml): the documented example reads as the
/// API says, and only a kind of channel passes as a channel, never an address.
final class ResponderWireTests: XCTestCase {
    func testTheDocumentedReplyReads() throws {
        let body = #"{"responders": [{"id": "anna-device", "name": "Anna", "kind": "watcher", "channels": ["device"], "#
            + #""notifiedOf": ["missed_check_in", "help_alert"]}]}"#
        let list = try APICoding.decode(ResponderList.self, from: Array(body.utf8)).get()
        let anna = WireResponder(id: "anna-device", name: "Anna", kind: "watcher", channels: ["device"],
                                 notifiedOf: ["missed_check_in", "help_alert"])
        XCTAssertEqual(list, ResponderList(responders: [anna]))
        XCTAssertEqual(try APICoding.decode(ResponderList.self, from: APICoding.encode(list)).get(), list)
    }

    func testOnlyAKindOfChannelIsAChannel() {
        for (text, kind) in [("sms", "sms"), ("MSTeams", "msteams"), ("push_over-2", "push_over-2"),
                             (String(repeating: "a", count: 32), String(repeating: "a", count: 32))] {
            XCTAssertEqual(WireResponder.channelKind(text), kind, text)
        }
        for text in ["", "+44 7700 900123", "07700900123", "anna@example.org", "https://hooks.example.org/x", "2fa", "sms ",
                     "é-mail", String(repeating: "a", count: 33)] {
            XCTAssertNil(WireResponder.channelKind(text), text)
        }
    }
}
