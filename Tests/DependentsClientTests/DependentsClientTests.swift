import CheckInModels
import DependentsClient
import TestSupport
import XCTest

/// The polled dependents' interface: the failing test value reports every call; the statuses
/// are ordered the way the watcher's LEDs say them.
final class DependentsClientTests: XCTestCase {
    func testTheFailingClientReportsEveryCall() async {
        let client = DependentsClient.failing()
        let messages = await unexpectedCalls {
            _ = await client.fetch()
            _ = await client.ping("a")
            _ = await client.clearPing("a")
            _ = await client.onIt("a", "Anna")
            _ = await client.add("a")
            _ = await client.remove("a")
        }
        let names = ["fetch", "ping", "clearPing", "onIt", "add", "remove"].map { "DependentsClient.\($0)" }
        XCTAssertEqual(messages.count, names.count, "\(messages)")
        for (message, name) in zip(messages, names) { XCTAssertTrue(message.contains(name), message) }
    }

    func testHelpAlertAndOverdueAreLoudestThenSilentThenReminderAndCheckedInIsCalm() {
        let loudestFirst = DependentStatus.allCases.sorted { $0.urgency > $1.urgency }
        XCTAssertEqual(loudestFirst, [.helpAlert, .overdue, .silent, .reminder, .unknown, .away, .checkedIn])
        XCTAssertEqual(DependentStatus.allCases.filter(\.needsSomeone), [.helpAlert, .overdue])
    }
}
