import CheckInModels
import XCTest

final class TerminalTextTests: XCTestCase {
    func testControlAndBidirectionalCharactersBecomeEscapes() {
        XCTAssertEqual(TerminalText.escaped("a\u{1B}[2Jb"), "a\\u001B[2Jb")
        XCTAssertEqual(TerminalText.escaped("line\nnext\r\tend\u{7F}\u{9B}"), "line\\nnext\\r\\tend\\u007F\\u009B")
        XCTAssertEqual(TerminalText.escaped("abc\u{202E}fed"), "abc\\u202Efed")
        XCTAssertEqual(TerminalText.escaped("\u{0}\u{2028}"), "\\u0000\\u2028")
        XCTAssertEqual(TerminalText.quoted("x\u{7}"), "\"x\\u0007\"")
    }

    func testPrintableTextIsKeptAsItIs() {
        for text in ["/run/lifesignal/control.sock", "C:\\path", "Grüße, 你好 🙂", "", "\\u001B"] {
            XCTAssertEqual(TerminalText.escaped(text), text)
        }
    }

    func testEscapingTwiceChangesNothing() {
        let once = TerminalText.escaped("\u{1B}]0;title\u{7}\n\u{202E}")
        XCTAssertEqual(TerminalText.escaped(once), once)
        XCTAssertFalse(once.unicodeScalars.contains { $0.value < 0x20 })
    }

    func testLinesAreEscapedOneByOne() {
        XCTAssertEqual(TerminalText.escapedLines("first \u{1B}\nsecond\r"), "first \\u001B\nsecond\\r")
    }
}
