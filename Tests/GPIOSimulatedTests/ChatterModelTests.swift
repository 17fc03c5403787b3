import GPIOSimulated
import XCTest

final class ChatterModelTests: XCTestCase {
    func testBurstAlternatesAndLandsOnTheNewLevel() {
        for edges in [2, 19, 20] {
            let chatter = ChatterModel(edges: edges, span: .milliseconds(5))
            for target in [true, false] {
                let burst = chatter.burst(to: target)
                XCTAssertEqual(burst.count % 2, 1, "\(edges) edges must round to an odd count")
                XCTAssertGreaterThanOrEqual(burst.count, edges)
                XCTAssertEqual(burst.first?.level, target, "the first contact reaches the new level")
                XCTAssertEqual(burst.last?.level, target, "the burst must end at the new level")
                for (previous, next) in zip(burst, burst.dropFirst()) {
                    XCTAssertNotEqual(previous.level, next.level, "every raw edge is a transition")
                    XCTAssertLessThan(previous.offset, next.offset)
                }
                XCTAssertEqual(burst.first?.offset, .zero)
                XCTAssertEqual(burst.last?.offset, chatter.span)
            }
        }
    }

    func testNoChatterIsOneCleanEdge() {
        let burst = ChatterModel.none.burst(to: true)
        XCTAssertEqual(burst.map(\.level), [true])
        XCTAssertEqual(burst.map(\.offset), [.zero])
    }
}
