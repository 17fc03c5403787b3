import GPIOClient
@testable import GPIOLibgpiod
import XCTest

final class ButtonLineTrackerTests: XCTestCase {
    private func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// libgpiod 1.x: user-space debounce, no sequence numbers.
    private func userSpaceTracker(initialLevel: Bool = false) -> ButtonLineTracker {
        ButtonLineTracker(
            userSpaceDebounce: ms(30), kernelDebounce: .zero, heldRecheckInterval: ms(500),
            initialLevel: initialLevel, at: .zero)
    }

    /// libgpiod 2.x: the kernel debounced already and numbers the events.
    private func kernelTracker() -> ButtonLineTracker {
        ButtonLineTracker(
            userSpaceDebounce: .zero, kernelDebounce: ms(30), heldRecheckInterval: ms(500),
            initialLevel: false, at: .zero)
    }

    private func edge(_ rising: Bool, _ at: Duration, _ sequence: UInt64 = 0) -> RawEdge {
        RawEdge(rising: rising, at: at, lineSequence: sequence)
    }

    func testTwentyEdgeChatterEndingPressedCountsOnce() {
        var tracker = userSpaceTracker()
        var events: [ButtonEvent] = []
        let start = Duration.seconds(10)
        for index in 0..<20 {  // 20 edges 1 ms apart: rising, falling, ..., the last one falling?
            events += tracker.edge(edge(index % 2 == 0, start + ms(index))).events
        }
        events += tracker.edge(edge(true, start + ms(20))).events  // settles pressed
        XCTAssertEqual(events, [])
        XCTAssertEqual(tracker.wakeDeadline, start + ms(50))
        XCTAssertNil(tracker.settle(at: start + ms(49)))
        XCTAssertEqual(tracker.settle(at: start + ms(50)), ButtonEvent(.pressed, at: start + ms(20)))
        XCTAssertNil(tracker.settle(at: start + ms(500)), "one burst, one press")
        XCTAssertTrue(tracker.isPressed)
    }

    func testGlitchShorterThanDebounceIsNothing() {
        var tracker = userSpaceTracker()
        let events = tracker.edge(edge(true, ms(100))).events + tracker.edge(edge(false, ms(110))).events
        XCTAssertEqual(events, [])
        XCTAssertNil(tracker.settle(at: ms(1000)))
        XCTAssertNil(tracker.wakeDeadline, "idle and released: sleep until the next edge")
    }

    func testLevelStableBeforeTheNextEdgeIsReportedFirst() {
        // A press and its release read in one batch: the press had been stable for 60 ms.
        var tracker = userSpaceTracker()
        var events = tracker.edge(edge(true, ms(100))).events
        events += tracker.edge(edge(false, ms(160))).events
        XCTAssertEqual(events, [ButtonEvent(.pressed, at: ms(100))])
        XCTAssertEqual(tracker.settle(at: ms(190)), ButtonEvent(.released, at: ms(160)))
    }

    func testKernelDebouncedPressAndReleaseInOneBatchAreBothReported() {
        var tracker = kernelTracker()
        // Stamped when the kernel's 30 ms of stability ended; reported at the edge itself.
        var events = tracker.edge(edge(true, ms(130), 1)).events
        events += tracker.edge(edge(false, ms(230), 2)).events
        if let last = tracker.settle(at: ms(231)) { events.append(last) }
        XCTAssertEqual(events, [ButtonEvent(.pressed, at: ms(100)), ButtonEvent(.released, at: ms(200))])
    }

    func testSequenceGapReportsLostEvents() {
        var tracker = kernelTracker()
        XCTAssertEqual(tracker.edge(edge(true, ms(100), 1)).lost, 0)
        XCTAssertEqual(tracker.edge(edge(false, ms(200), 2)).lost, 0)
        XCTAssertEqual(tracker.edge(edge(true, ms(300), 6)).lost, 3)
        XCTAssertEqual(tracker.edge(edge(false, ms(400), 7)).lost, 0)
    }

    func testLostReleaseIsFoundByTheHeldRecheck() {
        var tracker = userSpaceTracker()
        _ = tracker.edge(edge(true, ms(100)))
        XCTAssertEqual(tracker.settle(at: ms(130)), ButtonEvent(.pressed, at: ms(100)))
        tracker.levelRead(true, at: ms(131))  // the re-check right after the press: still held
        XCTAssertEqual(tracker.wakeDeadline, ms(631))
        XCTAssertFalse(tracker.needsLevelCheck(at: ms(630)))
        XCTAssertTrue(tracker.needsLevelCheck(at: ms(631)))
        // The release edge never arrived, but the line reads released.
        tracker.levelRead(false, at: ms(631))
        XCTAssertEqual(tracker.settle(at: ms(661)), ButtonEvent(.released, at: ms(631)))
        XCTAssertFalse(tracker.isPressed)
        XCTAssertNil(tracker.wakeDeadline)
    }

    func testLevelReadAgreeingWithAPendingLevelDoesNotDelayIt() {
        var tracker = userSpaceTracker()
        _ = tracker.edge(edge(true, ms(100)))
        tracker.levelRead(true, at: ms(120))
        XCTAssertEqual(tracker.settle(at: ms(130)), ButtonEvent(.pressed, at: ms(100)))
    }

    func testButtonHeldAtStartIsNotAPress() {
        var tracker = userSpaceTracker(initialLevel: true)
        tracker.levelRead(true, at: ms(600))
        XCTAssertNil(tracker.settle(at: ms(2000)))
        _ = tracker.edge(edge(false, ms(2100)))
        XCTAssertEqual(tracker.settle(at: ms(2130)), ButtonEvent(.released, at: ms(2100)))
    }
}
