import CheckInModels
import XCTest

/// The byte-exact text search the daemon's modules use instead of _StringProcessing's.
final class TextSearchTests: XCTestCase {
    func testIncludesAndOffsets() {
        XCTAssertTrue("<!DOCTYPE html>".lowercased().includes("<!doctype"))
        XCTAssertFalse("text/plain".includes("html"))
        XCTAssertTrue("anything".includes(""))
        XCTAssertFalse("ab".includes("abc"))
        XCTAssertEqual("aaab".utf8Offset(of: "ab"), 2)
        XCTAssertEqual("abab".utf8Offset(of: "ab", from: 1), 2)
        XCTAssertNil("abab".utf8Offset(of: "ab", from: 3))
        XCTAssertEqual("é/é".utf8Offset(of: "/"), 2, "offsets count UTF-8 bytes")
    }

    func testPiecesKeepEmptyOnesLikeSplitWithoutOmitting() {
        for (text, separator) in [("a, b,, c", ", "), (", a, ", ", "), ("", ", "), ("abc", "x"), ("&lt;&lt;", "&lt;")] {
            XCTAssertEqual(text.pieces(separatedBy: separator),
                           text.split(separator: separator, omittingEmptySubsequences: false).map(String.init), text)
        }
        XCTAssertEqual("a &amp; b &amp;".replacingEvery("&amp;", with: "&"), "a & b &")
    }
}
