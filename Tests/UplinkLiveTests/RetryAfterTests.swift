import CheckInModels
import UplinkClient
@testable import UplinkLive
import XCTest

/// How a server's retry hint is read. (How a status is classified: UplinkClientTests.)
final class RetryAfterTests: XCTestCase {
    func testRetryAfterIsReadInSecondsAndAsAnHTTPDate() {
        let now = WallTime(iso8601: "1994-11-06T08:49:07Z")!
        XCTAssertEqual(RetryAfter.parse("120", now: now), .seconds(120))
        XCTAssertEqual(RetryAfter.parse(" 0 ", now: now), .zero)
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now), .seconds(30))
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:48:37 GMT", now: now), .zero, "a date in the past: now")
        XCTAssertNil(RetryAfter.parse("soon", now: now))
        XCTAssertNil(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now), "obsolete forms are not guessed at")
    }
}
