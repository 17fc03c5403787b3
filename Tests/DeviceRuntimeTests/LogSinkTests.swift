@testable import DeviceRuntime
import Glibc
import Synchronization
import XCTest

/// The log sink runs for the daemon's whole life, one call per log line: it must not keep
/// anything per line.
final class LogSinkTests: XCTestCase {
    /// With the writer closure stored directly in the Mutex, every line wrapped it in one more
    /// re-abstraction thunk (≈ 100–170 bytes of heap per line, 10,000 lines ≈ 1–1.7 MB, and a
    /// call chain as deep as the number of lines). Heap in use is compared before and after.
    func testWritingLinesKeepsNoMemoryPerLine() {
        let sink = LogSink()
        let received = Mutex(0)
        sink.redirect { _ in received.withLock { $0 += 1 } }
        let lines = 10_000
        sink.write("warm-up")  // first-use allocations are not per line
        let before = heapInUse()
        for index in 0..<lines { sink.write("line \(index)") }
        let grown = heapInUse() - before

        XCTAssertEqual(received.withLock { $0 }, lines + 1, "every line reaches the redirected writer")
        XCTAssertLessThan(grown, 64 * 1024,
                          "\(lines) log lines kept \(grown) bytes of heap (\(grown / lines) per line)")
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

    /// Bytes handed out by malloc and not freed (all arenas).
    private func heapInUse() -> Int {
        Int(mallinfo2().uordblks)
    }
}
