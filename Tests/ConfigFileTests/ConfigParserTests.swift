import ConfigFile
import XCTest

final class ConfigParserTests: XCTestCase {
    // MARK: Accepted input

    func testValuesOfEveryKindWithTheirPositions() throws {
        let document = try ConfigDocument.parse("""
            # a comment
            [section]
            name = "text"   # trailing comment
            count = -1_000
            flag = true
              off = false
            list = [ "a", 'b' ]
            """)
        let table = try XCTUnwrap(document.table(["section"]))
        XCTAssertEqual(table.line, 2)
        XCTAssertEqual(table["name"]?.value, ConfigValue(.string("text"), line: 3, column: 8))
        XCTAssertEqual(table["count"]?.value, ConfigValue(.integer(-1000), line: 4, column: 9))
        XCTAssertEqual(table["flag"]?.value.boolValue, true)
        XCTAssertEqual(table["off"]?.line, 6)
        XCTAssertEqual(table["off"]?.column, 3)
        XCTAssertEqual(table["off"]?.value.boolValue, false)
        let list = try XCTUnwrap(table["list"]?.value.arrayValue)
        XCTAssertEqual(list, [ConfigValue(.string("a"), line: 7, column: 10), ConfigValue(.string("b"), line: 7, column: 15)])
        XCTAssertEqual(table.entries.map(\.key), ["name", "count", "flag", "off", "list"])
    }

    func testRootDottedAndQuotedTables() throws {
        let document = try ConfigDocument.parse("""
            top = 1
            [a . "b c".'d']
            "quoted key" = 2
            'literal key' = 3
            [a]
            x = 4
            """)
        XCTAssertEqual(document.tables.map(\.path), [[], ["a", "b c", "d"], ["a"]])
        XCTAssertEqual(document.table([])?["top"]?.value.integerValue, 1)
        XCTAssertEqual(document.table(["a", "b c", "d"])?["quoted key"]?.value.integerValue, 2)
        XCTAssertEqual(document.table(["a", "b c", "d"])?["literal key"]?.value.integerValue, 3)
        XCTAssertEqual(document.table(["a", "b c", "d"])?.name, "a.\"b c\".d")
        XCTAssertEqual(document.table(["a"])?["x"]?.value.integerValue, 4)
    }

    func testEscapesInBasicStringsAndNoneInLiteralStrings() throws {
        let document = try ConfigDocument.parse(#"""
            a = "q\" b\\ n\n t\t u\u00E9 U\U0001F600 b\b f\f r\r"
            b = 'C:\path\n'
            e = ""
            """#)
        let root = try XCTUnwrap(document.table([]))
        XCTAssertEqual(root["a"]?.value.stringValue, "q\" b\\ n\n t\t u\u{E9} U\u{1F600} b\u{08} f\u{0C} r\r")
        XCTAssertEqual(root["b"]?.value.stringValue, #"C:\path\n"#)
        XCTAssertEqual(root["e"]?.value.stringValue, "")
    }

    func testIntegerForms() throws {
        let document = try ConfigDocument.parse("""
            a = 0
            b = +42
            c = -0
            d = 1_000_000
            e = 9223372036854775807
            f = -9223372036854775808
            """)
        let values = try XCTUnwrap(document.table([])).entries.map(\.value.integerValue)
        XCTAssertEqual(values, [0, 42, 0, 1_000_000, .max, .min])
    }

    func testArraysSpanLinesWithCommentsAndTrailingComma() throws {
        let document = try ConfigDocument.parse("""
            list = [
              "one",  # first
              2,

              true,   # trailing comma follows
            ]
            empty = []
            """)
        let root = try XCTUnwrap(document.table([]))
        XCTAssertEqual(root["list"]?.value.arrayValue?.map(\.kind), [.string("one"), .integer(2), .bool(true)])
        XCTAssertEqual(root["list"]?.value.arrayValue?.map(\.line), [2, 3, 5])
        XCTAssertEqual(root["empty"]?.value.arrayValue, [])
        XCTAssertEqual(root["empty"]?.line, 7)
    }

    func testCRLFLineEndsByteOrderMarkAndEmptyInput() throws {
        let document = try ConfigDocument.parse("\u{FEFF}[t]\r\nk = 1\r\n\r\nj = 'x'\r\n")
        XCTAssertEqual(document.table(["t"])?["j"]?.line, 4)
        XCTAssertEqual(try ConfigDocument.parse("").tables, [ConfigTable(path: [], line: 1, column: 1)])
        XCTAssertEqual(try ConfigDocument.parse("\n  # only a comment\n\t\n").tables.count, 1)
    }

    func testImplicitParentThenExplicitParentIsAllowed() throws {
        let document = try ConfigDocument.parse("[a.b]\nx = 1\n[a]\ny = 2\n")
        XCTAssertEqual(document.table(["a"])?["y"]?.value.integerValue, 2)
    }

    // MARK: Errors, each with its position and what was expected

    private func assertError(
        _ text: String, line: Int, column: Int, contains fragment: String,
        file: StaticString = #filePath, sourceLine: UInt = #line
    ) {
        do {
            let document = try ConfigDocument.parse(text)
            XCTFail("expected an error, parsed \(document)", file: file, line: sourceLine)
        } catch {
            XCTAssertEqual("\(error.line):\(error.column)", "\(line):\(column)", "\(error)", file: file, line: sourceLine)
            XCTAssertTrue(error.message.contains(fragment), "'\(error.message)' lacks '\(fragment)'", file: file, line: sourceLine)
            XCTAssertEqual(error.description, "\(line):\(column): \(error.message)", file: file, line: sourceLine)
        }
    }

    func testDuplicatesAndClashes() {
        assertError("[t]\na = 1\n  a = 2", line: 3, column: 3, contains: "duplicate key 'a' in [t]: it is already set at line 2")
        assertError("[t]\n[u]\n[t]", line: 3, column: 1, contains: "table [t] is already defined at line 1")
        assertError("[t]\nx = 1\n[t.x]", line: 3, column: 1, contains: "'t.x' is already a value (line 2)")
        assertError("[t.x]\n[t]\nx = 1", line: 3, column: 1, contains: "clashes with the table of the same name at line 1")
        assertError("\"a\" = 1\na = 2", line: 2, column: 1, contains: "duplicate key 'a' before the first [table] header")
    }

    func testUnterminatedThings() {
        assertError("a = \"abc", line: 1, column: 5, contains: "unterminated string: expected a closing '\"'")
        assertError("a = \"abc\nb = 1", line: 1, column: 5, contains: "unterminated string")
        assertError("a = 'abc", line: 1, column: 5, contains: "unterminated literal string")
        assertError("a = \"ab\\", line: 1, column: 8, contains: "unterminated string")
        assertError("a = [1,\n 2", line: 2, column: 3, contains: "unterminated array: expected ']' to close the array opened at 1:5")
        assertError("a = [1 2]", line: 1, column: 8, contains: "expected ',' or ']' in the array opened at 1:5; found '2'")
        assertError("[t", line: 1, column: 3, contains: "expected ']' to close the table header")
        assertError("[]", line: 1, column: 2, contains: "expected a key")
    }

    func testBadEscapesAndControlCharacters() {
        assertError(#"a = "x\q""#, line: 1, column: 7, contains: #"invalid escape '\q'"#)
        assertError(#"a = "\u12""#, line: 1, column: 6, contains: #"\u needs exactly 4 hexadecimal digits"#)
        assertError(#"a = "\uD800""#, line: 1, column: 6, contains: "U+D800 is not a Unicode scalar value")
        assertError("a = \"x\u{01}\"", line: 1, column: 7, contains: "control character U+0001 must be written as an escape")
        assertError("a = 1 # bell \u{07}", line: 1, column: 14, contains: "control character U+0007 is not allowed in a comment")
        assertError("a = 1\rb = 2", line: 1, column: 7, contains: "carriage return must be followed by a newline")
    }

    func testUnsupportedFeaturesAreNamed() {
        assertError("a = 1.5", line: 1, column: 5, contains: "floating-point numbers are not supported")
        assertError("a = 1e3", line: 1, column: 5, contains: "floating-point numbers are not supported")
        assertError("a = inf", line: 1, column: 5, contains: "floating-point numbers are not supported")
        assertError("a = 1979-05-27", line: 1, column: 5, contains: "dates and times are not supported")
        assertError("a = 07:32:00", line: 1, column: 5, contains: "dates and times are not supported")
        assertError("a = { b = 1 }", line: 1, column: 5, contains: "inline tables ({ ... }) are not supported")
        assertError("[[t]]", line: 1, column: 2, contains: "arrays of tables ([[...]]) are not supported")
        assertError("a = \"\"\"x\"\"\"", line: 1, column: 5, contains: "multi-line strings")
        assertError("a = '''x'''", line: 1, column: 5, contains: "multi-line literal strings")
        assertError("[t]\nb.c = 1", line: 2, column: 1, contains: "dotted keys like 'b.c' are not supported; write the key 'c' under a [b] header")
        assertError("a = [[1]]", line: 1, column: 6, contains: "arrays inside arrays are not supported")
        assertError("a = 0x1F", line: 1, column: 5, contains: "hexadecimal, octal and binary integers are not supported")
    }

    func testBadIntegers() {
        assertError("a = 012", line: 1, column: 5, contains: "leading zeros are not allowed")
        assertError("a = 1__0", line: 1, column: 5, contains: "'_' may only stand between two digits")
        assertError("a = 10_", line: 1, column: 5, contains: "'_' may only stand between two digits")
        assertError("a = 9223372036854775808", line: 1, column: 5, contains: "out of range")
        assertError("a = -9223372036854775809", line: 1, column: 5, contains: "out of range")
        assertError("a = 12ab", line: 1, column: 5, contains: "'12ab' is not an integer")
    }

    func testMissingPiecesSayWhatWasExpected() {
        assertError("[t]\nkey", line: 2, column: 4, contains: "expected '=' after the key 'key'; found the end of the file")
        assertError("key = ", line: 1, column: 7, contains: "expected a value")
        assertError("key = True", line: 1, column: 7, contains: "booleans are written in lowercase: true")
        assertError("key = simulated", line: 1, column: 7, contains: "text values need quotes: \"simulated\"")
        assertError("key = \"a\" \"b\"", line: 1, column: 11, contains: "expected the end of the line after the value of 'key'; found '\"'")
        assertError("a = 1 \u{FEFF}", line: 1, column: 7, contains: "found U+FEFF")
        assertError("[" + String(repeating: "a.", count: 16) + "a]", line: 1, column: 1, contains: "table header has 17 names; at most 16")
        assertError("[t] x = 1", line: 1, column: 5, contains: "expected the end of the line after the table header")
        assertError("= 1", line: 1, column: 1, contains: "expected a key (letters, digits, '_' and '-', or a quoted string); found '='")
        assertError("a = [1,,2]", line: 1, column: 8, contains: "expected a value")
        assertError("é = 1", line: 1, column: 1, contains: "expected a key")
    }
}
