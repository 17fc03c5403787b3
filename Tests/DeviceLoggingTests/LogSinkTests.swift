import DeviceLogging
import Foundation
import Synchronization
import XCTest

/// The log sink runs for the daemon's whole life, one call per log line: it must not keep
/// anything per line.
final class LogSinkTests: XCTestCase {
    /// With the writer closure stored directly in the Mutex, every line wrapped it in one more
    /// re-abstraction thunk (≈ 100–170 bytes of heap per line, and a call chain one frame deeper
    /// per line, until the stack overflows). The writer counts the frames above it when it is
    /// called (`Thread.callStackReturnAddresses`, at most 128): the 10,000th line must reach it
    /// as directly as the first. Frames, not stack addresses: under AddressSanitizer a closure's
    /// locals may live on its fake stack, whose addresses say nothing about depth.
    func testWritingLinesDoesNotDeepenTheCallChain() {
        let sink = LogSink()
        let depths = Mutex<[Int]>([])
        sink.redirect { _ in
            let depth = Thread.callStackReturnAddresses.count
            depths.withLock { $0.append(depth) }
        }
        let lines = 10_000
        for index in 0..<lines { sink.write("line \(index)") }

        let recorded = depths.withLock { $0 }
        XCTAssertEqual(recorded.count, lines, "every line reaches the redirected writer")
        guard let first = recorded.first, let last = recorded.last else { return }
        XCTAssertEqual(last, first, "the \(lines)th line reached the writer through \(last) frames, the first through \(first)")
    }

    func testRedirectReplacesTheWriter() {
        let sink = LogSink()
        let first = Mutex<[String]>([])
        let second = Mutex<[String]>([])
        sink.redirect { line in first.withLock { $0.append(line) } }
        sink.write("one")
        sink.redirect { line in second.withLock { $0.append(line) } }
        sink.write("two")
        XCTAssertEqual(first.withLock { $0 }, ["one"])
        XCTAssertEqual(second.withLock { $0 }, ["two"])
    }
}
