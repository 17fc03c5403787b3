import CheckInModels
import UplinkClient
@testable import UplinkLive
import XCTest

final class RetryPolicyTests: XCTestCase {
    /// A deterministic generator (SplitMix64), so each test sees the same sequence every run.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func testTheBoundDoublesFromTheInitialDelayUpToTheCap() {
        let policy = RetryPolicy(initial: .seconds(2), cap: .seconds(60))
        XCTAssertEqual((1...7).map { policy.bound(afterFailures: $0) },
                       [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        XCTAssertEqual(policy.bound(afterFailures: 10_000), .seconds(60), "no overflow after many failures")
    }

    func testDelaysAreSpreadOverTheWholeRangeUpToTheBound() {
        let policy = RetryPolicy(initial: .seconds(1), cap: .seconds(8))
        var generator = SplitMix(state: 42)
        let delays = (0..<2000).map { _ in policy.delay(afterFailures: 4, retryAfter: nil, using: &generator) }
        XCTAssertTrue(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(8) })
        // Full jitter: some retries come early, some late (not all bunched at the bound).
        XCTAssertTrue(delays.contains { $0 < .seconds(1) })
        XCTAssertTrue(delays.contains { $0 > .seconds(7) })
    }

    func testRetryAfterIsAFloorAndIsItselfCapped() {
        let policy = RetryPolicy(initial: .seconds(1), cap: .seconds(4), longestRetryAfter: .seconds(600))
        var generator = SplitMix(state: 7)
        for _ in 0..<200 {
            XCTAssertGreaterThanOrEqual(policy.delay(afterFailures: 1, retryAfter: .seconds(30), using: &generator), .seconds(30))
        }
        XCTAssertEqual(policy.delay(afterFailures: 1, retryAfter: .seconds(86_400), using: &generator), .seconds(600))
    }

    func testRetryAfterIsReadInSecondsAndAsAnHTTPDate() {
        let now = WallTime(iso8601: "1994-11-06T08:49:07Z")!
        XCTAssertEqual(RetryAfter.parse("120", now: now), .seconds(120))
        XCTAssertEqual(RetryAfter.parse(" 0 ", now: now), .zero)
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now), .seconds(30))
        XCTAssertEqual(RetryAfter.parse("Sun, 06 Nov 1994 08:48:37 GMT", now: now), .zero, "a date in the past: now")
        XCTAssertNil(RetryAfter.parse("soon", now: now))
        XCTAssertNil(RetryAfter.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now), "obsolete forms are not guessed at")
    }

    func testHTTPStatusesAreClassifiedAsRFC9110Suggests() {
        XCTAssertEqual([408, 429, 500, 502, 503, 504].map(UplinkFailure.kind(ofHTTPStatus:)), Array(repeating: .transient, count: 6))
        XCTAssertEqual([400, 401, 403, 404, 409, 413, 422].map(UplinkFailure.kind(ofHTTPStatus:)), Array(repeating: .permanent, count: 7))
    }
}
