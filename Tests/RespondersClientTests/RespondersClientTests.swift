import CheckInModels
import RespondersClient
import TestSupport
import XCTest

/// The polled responders' interface: the failing test value reports its call; the topics a
/// responder is told of read in the order the device's promise comes (missed check-in first).
final class RespondersClientTests: XCTestCase {
    func testTheFailingClientReportsItsCall() async {
        let client = RespondersClient.failing(kind: "healthchecks")
        let messages = await unexpectedCalls {
            _ = await client.fetch()
        }
        XCTAssertEqual(messages.count, 1, "\(messages)")
        XCTAssertTrue(messages.first?.contains("RespondersClient.fetch") ?? false, "\(messages)")
        XCTAssertEqual(client.kind, "healthchecks")
    }

    func testMissedCheckInsComeBeforeHelpAlerts() {
        XCTAssertEqual(Set(ResponderTopic.allCases).sorted(), [.missedCheckIn, .helpAlert])
        XCTAssertEqual(ResponderTopic.allCases.map(\.rawValue), ["missed_check_in", "help_alert"])
    }
}
