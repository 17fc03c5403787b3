import ComposableCore
import DeviceLogging
import XCTest

/// The device's log waits while a check-in is being written (the comparison of states is not done
/// in front of the write), and must come out complete and in order afterwards. Here the state is a
/// number, odd while "a check-in is being written", and each action's line names the action and
/// the states it went between.
final class HeldActionLogTests: XCTestCase {
    private var written: [String] = []

    private func log(limit: Int = 32) -> HeldActionLog<Int, String> {
        HeldActionLog(initial: 0, limit: limit, holds: { $0 % 2 == 1 },
                      entries: { action, before, after in [LogEntry(.info, "\(action) \(before)→\(after)")] },
                      write: { [unowned self] entries in written += entries.map(\.message) })
    }

    func testLinesAreWrittenAtOnceWhileNothingHoldsThem() {
        let log = log()
        log.record("a", after: 2)
        XCTAssertEqual(written, ["a 0→2"])
        log.record("b", after: 4)
        XCTAssertEqual(written, ["a 0→2", "b 2→4"])
        XCTAssertEqual(log.heldCount, 0)
    }

    func testHeldLinesComeOutInOrderWithTheFirstActionThatHoldsNoMore() {
        let log = log()
        log.record("release", after: 1)
        log.record("timer", after: 3)
        XCTAssertEqual(written, [], "nothing is worked out while a check-in is being written")
        XCTAssertEqual(log.heldCount, 2)
        log.record("stored", after: 4)
        XCTAssertEqual(written, ["release 0→1", "timer 1→3", "stored 3→4"],
                       "each held action compared with the state before it, then the one that released them")
        XCTAssertEqual(log.heldCount, 0)
        log.record("next", after: 6)
        XCTAssertEqual(written.last, "next 4→6")
    }

    func testAStoreThatNeverAnswersDelaysTheLogByAtMostTheLimit() {
        let log = log(limit: 3)
        log.record("release", after: 1)
        log.record("upload failed", after: 3)
        XCTAssertEqual(written, [])
        log.record("timer", after: 5)
        XCTAssertEqual(written, ["release 0→1", "upload failed 1→3", "timer 3→5"])
        log.record("another", after: 7)
        XCTAssertEqual(written.count, 3, "held again after the limit wrote them")
        log.flush()
        XCTAssertEqual(written.last, "another 5→7")
        XCTAssertEqual(log.heldCount, 0)
    }
}
