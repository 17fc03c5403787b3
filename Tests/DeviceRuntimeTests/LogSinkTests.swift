@testable import DeviceRuntime
import Synchronization
import XCTest

/// The log sink runs for the daemon's whole life, one call per log line: it must not keep
/// anything per line.
final class LogSinkTests: XCTestCase {
    /// With the writer closure stored directly in the Mutex, every line wrapped it in one more
    /// re-abstraction thunk (≈ 100–170 bytes of heap per line, and a call chain one frame deeper
    /// per line, until the stack overflows). The writer sees where the stack is when it is called:
    /// the 10,000th line must reach it as directly as the first.
    func testWritingLinesDoesNotDeepenTheCallChain() {
        let sink = LogSink()
        let stackAddresses = Mutex<[UInt]>([])
        sink.redirect { _ in
            var marker = 0
            let address = withUnsafeMutablePointer(to: &marker) { UInt(bitPattern: $0) }
            stackAddresses.withLock { $0.append(address) }
        }
        let lines = 10_000
        for index in 0..<lines { sink.write("line \(index)") }

        let addresses = stackAddresses.withLock { $0 }
        XCTAssertEqual(addresses.count, lines, "every line reaches the redirected writer")
        guard let first = addresses.first, let last = addresses.last else { return }
        let deeper = first > last ? first - last : 0
        XCTAssertLessThan(deeper, 1024,
                          "the \(lines)th line ran \(deeper) bytes deeper on the stack than the first")
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
