import ComposableCore
import DeviceLogging
import Logging
import Synchronization
import XCTest

/// One line per event: under systemd with its syslog priority first (journald files it at the
/// right level), in a terminal with a short time and the level; a message can never break a line.
final class DeviceLogHandlerTests: XCTestCase {
    /// The lines written to a sink.
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        func append(_ line: String) { lines.withLock { $0.append(line) } }
        func withLock<T>(_ body: ([String]) -> T) -> T { lines.withLock { body($0) } }
    }

    private func logger(journal: Bool, level: Logger.Level = .debug) -> (Logger, Lines) {
        let lines = Lines()
        let sink = LogSink()
        sink.redirect { line in lines.append(line) }
        let logger = Logger(label: "test") { label in DeviceLogHandler(label: label, level: level, journal: journal, sink: sink) }
        return (logger, lines)
    }

    func testUnderSystemdEachLineStartsWithItsSyslogPriority() {
        let (logger, lines) = logger(journal: true)
        logger.debug("d")
        logger.info("i")
        logger.notice("n")
        logger.warning("w")
        logger.error("e")
        logger.critical("c")
        XCTAssertEqual(lines.withLock { $0 }, ["<7>d", "<6>i", "<5>n", "<4>w", "<3>e", "<2>c"])
    }

    func testInATerminalALineHasTheTimeAndTheLevel() throws {
        let (logger, lines) = logger(journal: false)
        logger.warning("disk nearly full")
        let line = try XCTUnwrap(lines.withLock { $0 }.first)
        let parts = line.split(separator: " ", maxSplits: 2).map(String.init)
        XCTAssertEqual(parts.count, 3, line)
        XCTAssertEqual(parts[0].count, 8, "hh:mm:ss: \(line)")
        XCTAssertEqual(parts[0].filter { $0 == ":" }.count, 2, line)
        XCTAssertEqual(parts[1], "WARNING")
        XCTAssertEqual(parts[2], "disk nearly full")
    }

    func testNewlinesInAMessageOrItsMetadataNeverStartAnotherLine() {
        let (logger, lines) = logger(journal: true)
        logger.error("first\nsecond\r\nthird", metadata: ["path": "a\nb"])
        XCTAssertEqual(lines.withLock { $0 }, ["<3>first second third path=a b"])
    }

    /// Every character a terminal or the journal may break a line at, and characters that share
    /// their first UTF-8 byte but break nothing (a degree sign, an ellipsis) and stay.
    func testEveryKindOfLineBreakBecomesASpaceAndLookalikesStay() {
        let (logger, lines) = logger(journal: true)
        // One break per line: a line whose only break went unseen must show it.
        for message in ["a\u{0B}b", "a\u{0C}b", "a\u{85}b", "a\u{2028}b", "a\u{2029}b"] { logger.error("\(message)") }
        logger.error("20°C …")
        XCTAssertEqual(lines.withLock { $0 }, Array(repeating: "<3>a b", count: 5) + ["<3>20°C …"])
    }

    func testMetadataIsSortedAndAnEventsOwnWinsOverTheLoggers() {
        var (logger, lines) = logger(journal: true)
        logger[metadataKey: "zone"] = "handler"
        logger[metadataKey: "device"] = "d-1"
        logger.info("hello", metadata: ["zone": "event", "attempt": "2"])
        XCTAssertEqual(lines.withLock { $0 }, ["<6>hello attempt=2 device=d-1 zone=event"])
    }

    func testLinesBelowTheLevelAreNotWritten() {
        let (logger, lines) = logger(journal: true, level: .warning)
        logger.info("quiet")
        logger.warning("loud")
        XCTAssertEqual(lines.withLock { $0 }, ["<4>loud"])
    }

    func testAFeaturesLogEntriesAreWrittenAtTheirLevelsWithTheirMetadata() {
        let (logger, lines) = logger(journal: true)
        logger.write([LogEntry(.notice, "cleared: store", metadata: ["condition": "store_cannot_write"]),
                      LogEntry(.critical, "lost")])
        XCTAssertEqual(lines.withLock { $0 }, ["<5>cleared: store condition=store_cannot_write", "<2>lost"])
    }
}
