import GPIOClient
import TestSupport
import XCTest

/// The test value reports every call it was not told to expect, so a test cannot run on a default.
final class FailingGPIOClientTests: XCTestCase {
    func testEveryCallIsReportedAsUnexpected() async throws {
        let client = GPIOClient.failing
        let messages = try await unexpectedCalls {
            XCTAssertThrowsError(try client.connect())
            XCTAssertThrowsError(try client.setLED(0, true))
            XCTAssertNil(client.failure())
            client.release()
            XCTAssertNil(client.chipChanges())
            XCTAssertFalse(client.onlyAChipChangeHelps(GPIOError(operation: "o", target: "t", reason: "r")))
        }
        let names = ["connect", "setLED", "failure", "release", "chipChanges", "onlyAChipChangeHelps"]
        XCTAssertEqual(messages.count, names.count, "\(messages)")
        for (message, name) in zip(messages, names) { XCTAssertTrue(message.contains("GPIOClient.\(name)"), message) }
    }
}
