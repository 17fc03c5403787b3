@testable import SingleThreadExecutor
import XCTest

final class TimerQueueTests: XCTestCase {
    func testNothingComesOutBeforeItsDeadline() {
        var queue = TimerQueue<String>()
        queue.insert("later", deadline: 50)
        XCTAssertNil(queue.popDue(now: 49))
        XCTAssertEqual(queue.earliestDeadline, 50)
        XCTAssertEqual(queue.popDue(now: 50), "later")
        XCTAssertTrue(queue.isEmpty)
    }

    func testItemsComeOutByDeadlineAndEqualDeadlinesInArrivalOrder() {
        var queue = TimerQueue<String>()
        for (item, deadline) in [("c", 30), ("a1", 10), ("b", 20), ("a2", 10), ("a3", 10)] {
            queue.insert(item, deadline: Int64(deadline))
        }
        var order: [String] = []
        while let item = queue.popDue(now: 100) { order.append(item) }
        XCTAssertEqual(order, ["a1", "a2", "a3", "b", "c"])
    }

    func testRemovedItemsNeverComeOutAndTheRestStaySorted() {
        var generator = SystemRandomNumberGenerator()
        var queue = TimerQueue<Int>()
        var deadlines: [Int: Int64] = [:]
        for index in 0..<500 {
            deadlines[index] = Int64.random(in: 0..<100, using: &generator)
            queue.insert(index, deadline: deadlines[index]!)
        }
        var removed = Set<Int>()
        for index in stride(from: 0, to: 500, by: 3) {
            XCTAssertEqual(queue.remove(where: { $0 == index }), index)
            removed.insert(index)
        }
        XCTAssertNil(queue.remove(where: { $0 == 0 }), "already removed")
        var popped: [Int] = []
        while let index = queue.popDue(now: .max) { popped.append(index) }
        XCTAssertEqual(Set(popped), Set(0..<500).subtracting(removed))
        XCTAssertEqual(popped.map { deadlines[$0]! }, popped.map { deadlines[$0]! }.sorted())
    }

    func testManyRandomDeadlinesComeOutSorted() {
        var generator = SystemRandomNumberGenerator()
        var queue = TimerQueue<Int>()
        var inserted: [(deadline: Int64, index: Int)] = []
        for index in 0..<2000 {
            let deadline = Int64.random(in: 0..<300, using: &generator)
            queue.insert(index, deadline: deadline)
            inserted.append((deadline, index))
            // Interleave removals, as a running loop does.
            if index.isMultiple(of: 7), let due = queue.popDue(now: -1) { XCTFail("nothing is due before 0, got \(due)") }
        }
        XCTAssertEqual(queue.count, 2000)
        var popped: [Int] = []
        while let index = queue.popDue(now: .max) { popped.append(index) }
        let expected = inserted.sorted { $0.deadline != $1.deadline ? $0.deadline < $1.deadline : $0.index < $1.index }
        XCTAssertEqual(popped, expected.map(\.index))
    }
}
