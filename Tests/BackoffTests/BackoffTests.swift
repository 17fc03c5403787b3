import Backoff
import TestSupport
import XCTest

final class BackoffTests: XCTestCase {
    func testTheBoundDoublesFromTheInitialDelayUpToTheCap() {
        let backoff = Backoff(initial: .seconds(2), cap: .seconds(60), jitter: .full)
        XCTAssertEqual((1...7).map { backoff.bound(afterFailures: $0) },
                       [.seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
        XCTAssertEqual(backoff.bound(afterFailures: 10_000), .seconds(60), "no overflow after many failures")
    }

    func testFullJitterSpreadsDelaysOverTheWholeRangeUpToTheBound() {
        let backoff = Backoff(initial: .seconds(1), cap: .seconds(8), jitter: .full)
        var generator = SeededRandom(state: 42)
        let delays = (0..<2000).map { _ in
            backoff.delay(afterFailures: 4, random: { Int64.random(in: $0, using: &generator) })
        }
        XCTAssertTrue(delays.allSatisfy { $0 >= .zero && $0 <= .seconds(8) })
        // Full jitter: some retries come early, some late (not all bunched at the bound).
        XCTAssertTrue(delays.contains { $0 < .seconds(1) })
        XCTAssertTrue(delays.contains { $0 > .seconds(7) })
    }

    func testARandomSourceOutOfRangeCannotPushTheDelayPastTheBound() {
        let backoff = Backoff(initial: .seconds(1), cap: .seconds(8), jitter: .full)
        XCTAssertEqual(backoff.delay(afterFailures: 2, random: { _ in .max }), .seconds(2))
        XCTAssertEqual(backoff.delay(afterFailures: 2, random: { _ in .min }), .zero)
    }

    func testWithoutJitterTheDelayIsTheBound() {
        XCTAssertEqual((1...8).map { Backoff.local.delay(afterFailures: $0, random: { _ in XCTFail("no jitter, no random"); return 0 }) },
                       [.seconds(1), .seconds(2), .seconds(4), .seconds(8), .seconds(16), .seconds(32), .seconds(60), .seconds(60)])
    }

    func testRetryAfterIsAFloorAndIsItselfCapped() {
        let backoff = Backoff(initial: .seconds(1), cap: .seconds(4), jitter: .full, longestRetryAfter: .seconds(600))
        var generator = SeededRandom(state: 7)
        for _ in 0..<200 {
            XCTAssertGreaterThanOrEqual(
                backoff.delay(afterFailures: 1, retryAfter: .seconds(30), random: { Int64.random(in: $0, using: &generator) }),
                .seconds(30))
        }
        XCTAssertEqual(backoff.delay(afterFailures: 1, retryAfter: .seconds(86_400), random: { $0.lowerBound }), .seconds(600))
    }

    func testNetworkBackoffStartsAtTwoSecondsOrTheCapIfSmaller() {
        XCTAssertEqual(Backoff.network(cap: .seconds(900)).initial, .seconds(2))
        XCTAssertEqual(Backoff.network(cap: .milliseconds(500)).initial, .milliseconds(500))
    }

    func testWholeMillisecondsSaturatesInsteadOfTrapping() {
        XCTAssertEqual(Duration.seconds(Int64.max).wholeMilliseconds, .max)
        XCTAssertEqual(Duration.seconds(Int64.min).wholeMilliseconds, .min)
        XCTAssertEqual(Duration.milliseconds(1500).wholeMilliseconds, 1500)
    }
}
