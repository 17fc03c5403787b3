import GPIOClient
import XCTest

/// Stable-level debouncing: a level counts only once the line has stayed at it for the period,
/// and every edge restarts the wait (not a lock-out window that would take a glitch for a press).
final class ButtonDebouncerTests: XCTestCase {
    let period = Duration.milliseconds(20)

    func testALevelCountsOnceItHasBeenStableForThePeriodStampedWithItsFirstEdge() {
        var debouncer = ButtonDebouncer(period: period)
        XCTAssertEqual(debouncer.edge(level: true, at: .seconds(1)), .seconds(1) + period)
        XCTAssertEqual(debouncer.settleDeadline, .seconds(1) + period)
        XCTAssertNil(debouncer.settle(at: .seconds(1) + period - .nanoseconds(1)), "not a moment early")
        XCTAssertEqual(debouncer.settle(at: .seconds(1) + period), ButtonEvent(.pressed, at: .seconds(1)))
        XCTAssertTrue(debouncer.stableLevel)
        XCTAssertNil(debouncer.settleDeadline)
        XCTAssertNil(debouncer.settle(at: .seconds(5)), "reported once")
    }

    func testEveryEdgeRestartsTheWaitAndABounceBackIsNothing() {
        var debouncer = ButtonDebouncer(period: period)
        _ = debouncer.edge(level: true, at: .milliseconds(0))
        XCTAssertNil(debouncer.edge(level: false, at: .milliseconds(5)), "back to the stable level: nothing pending")
        XCTAssertNil(debouncer.settle(at: .milliseconds(100)))
        XCTAssertFalse(debouncer.stableLevel)

        _ = debouncer.edge(level: true, at: .milliseconds(200))
        XCTAssertEqual(debouncer.edge(level: true, at: .milliseconds(210)), .milliseconds(230),
                       "the same level again after an edge never seen restarts the wait")
        XCTAssertNil(debouncer.settle(at: .milliseconds(225)))
        XCTAssertEqual(debouncer.settle(at: .milliseconds(230)), ButtonEvent(.pressed, at: .milliseconds(210)))
    }

    func testAChatteringBurstEndingPressedIsExactlyOnePressAndASpikeIsNothing() {
        var debouncer = ButtonDebouncer(period: period)
        var events: [ButtonEvent] = []
        // 21 edges in 5 ms, alternating, ending pressed; settle is polled after every edge.
        for edge in 0...20 {
            let at = Duration.microseconds(Int64(edge) * 250)
            _ = debouncer.edge(level: edge % 2 == 0, at: at)
            if let event = debouncer.settle(at: at) { events.append(event) }
        }
        if let deadline = debouncer.settleDeadline, let event = debouncer.settle(at: deadline) { events.append(event) }
        XCTAssertEqual(events, [ButtonEvent(.pressed, at: .milliseconds(5))])

        // A 10 ms spike to released: shorter than the period, so the button is still pressed.
        _ = debouncer.edge(level: false, at: .milliseconds(100))
        _ = debouncer.edge(level: true, at: .milliseconds(110))
        XCTAssertNil(debouncer.settle(at: .milliseconds(200)))
        XCTAssertTrue(debouncer.stableLevel)
    }

    func testAButtonHeldAtStartIsTheInitialLevelNotAPress() {
        var debouncer = ButtonDebouncer(period: period, initialLevel: true)
        XCTAssertNil(debouncer.edge(level: true, at: .seconds(1)))
        XCTAssertNil(debouncer.settle(at: .seconds(2)))
        _ = debouncer.edge(level: false, at: .seconds(3))
        XCTAssertEqual(debouncer.settle(at: .seconds(4)), ButtonEvent(.released, at: .seconds(3)))
    }

    func testAZeroPeriodSettlesAtTheEdgeItself() {
        var debouncer = ButtonDebouncer(period: .zero)
        XCTAssertEqual(debouncer.edge(level: true, at: .seconds(2)), .seconds(2))
        XCTAssertEqual(debouncer.settle(at: .seconds(2)), ButtonEvent(.pressed, at: .seconds(2)))
    }
}
