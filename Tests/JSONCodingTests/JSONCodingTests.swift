import Foundation
import JSONCoding
import TestSupport
import XCTest

/// The project's JSON coder against Foundation's, which it replaces in the binaries: the same bytes
/// out, the same values in, the same kinds of error.
final class JSONCodingTests: XCTestCase {
    enum Mood: String, Codable, Equatable { case calm, worried }
    enum Step: Codable, Equatable {
        case pressed(at: Int64)
        case held(Int, note: String?)
        case released
    }

    struct Everything: Codable, Equatable {
        var text: String
        var flag: Bool
        var int: Int
        var int64: Int64
        var int8: Int8
        var uint64: UInt64
        var uint16: UInt16
        var optionalText: String?
        var optionalInt: Int?
        var list: [Int]
        var nested: [[String]]
        var mood: Mood
        var steps: [Step]
        var table: [String: Int]
        var child: Child?
    }

    struct Child: Codable, Equatable {
        var name: String
        var children: [Child]
    }

    static func sample(_ random: inout SeededRandom) -> Everything {
        func text() -> String {
            let pieces = ["a", "Z", " ", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "é", "€", "😀", "\u{7F}", "}", "[", ":"]
            return (0..<Int.random(in: 0...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
        }
        func child(_ depth: Int) -> Child {
            Child(name: text(), children: depth == 0 ? [] : (0..<Int.random(in: 0...2, using: &random)).map { _ in child(depth - 1) })
        }
        return Everything(
            text: text(), flag: Bool.random(using: &random), int: Int.random(in: .min ... .max, using: &random),
            int64: Int64.random(in: .min ... .max, using: &random), int8: Int8.random(in: .min ... .max, using: &random),
            uint64: UInt64.random(in: .min ... .max, using: &random), uint16: UInt16.random(in: .min ... .max, using: &random),
            optionalText: Bool.random(using: &random) ? text() : nil,
            optionalInt: Bool.random(using: &random) ? Int.random(in: -5...5, using: &random) : nil,
            list: (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: -1000...1000, using: &random) },
            nested: (0..<Int.random(in: 0...3, using: &random)).map { _ in (0..<Int.random(in: 0...2, using: &random)).map { _ in text() } },
            mood: Bool.random(using: &random) ? .calm : .worried,
            steps: [.pressed(at: Int64.random(in: 0...1_000_000, using: &random)), .held(3, note: Bool.random(using: &random) ? text() : nil), .released],
            table: Dictionary(uniqueKeysWithValues: (0..<Int.random(in: 0...3, using: &random)).map { ("k\($0)" + text(), $0) }),
            child: Bool.random(using: &random) ? child(2) : nil)
    }

    func testTheSameBytesAsFoundationWithSortedKeysAndTheSameValuesBack() throws {
        var random = SeededRandom(state: 20261128)
        let foundation = JSONEncoder()
        foundation.outputFormatting = [.sortedKeys]
        for round in 0..<300 {
            let value = Self.sample(&random)
            let ours = try JSON.encode(value)
            let theirs = Array(try foundation.encode(value))
            XCTAssertEqual(String(decoding: ours, as: UTF8.self), String(decoding: theirs, as: UTF8.self), "round \(round)")
            XCTAssertEqual(try JSON.decode(Everything.self, from: theirs), value, "round \(round)")
            XCTAssertEqual(try JSONDecoder().decode(Everything.self, from: Data(ours)), value, "round \(round)")
        }
    }

    func testPrettyOutputIsIndentedAndReadsBackTheSame() throws {
        let value = Child(name: "mum", children: [Child(name: "a/b", children: [])])
        let text = String(decoding: try JSON.encode(value, format: JSONFormat(sortedKeys: true, pretty: true)), as: UTF8.self)
        XCTAssertEqual(text, """
            {
              "children": [
                {
                  "children": [],
                  "name": "a\\/b"
                }
              ],
              "name": "mum"
            }
            """)
        XCTAssertEqual(try JSON.decode(Child.self, from: Array(text.utf8)), value)
    }

    func testWhitespaceEscapesSurrogatePairsAndNumberFormsAreRead() throws {
        struct Sample: Codable, Equatable {
            var text: String
            var whole: Int
            var exact: Int
            var real: Double
        }
        let json = " {\r\n\t\"text\" : \"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t\\\"\\\\\" , \"whole\":-0,\"exact\":2.5e1,\"real\":-1.25E-2 } "
        let expected = Sample(text: "é😀/\u{8}\u{C}\n\r\t\"\\", whole: 0, exact: 25, real: -0.0125)
        XCTAssertEqual(try JSON.decode(Sample.self, from: Array(json.utf8)), expected)
        XCTAssertEqual(try JSONDecoder().decode(Sample.self, from: Data(json.utf8)), expected)
    }

    func testTextThatIsNotJSONIsRefusedWithWhereAndWhyAndFoundationRefusesItToo() {
        // Foundation's parser takes a trailing comma; RFC 8259 does not, and neither does this one.
        let trailingCommas = ["{\"a\":1,}", "[1,]"]
        let cases: [(String, String)] = [
            ("", "the text ends where a value should be at byte 1"),
            ("{", "expected a member name in double quotes at byte 2"),
            ("{\"a\":1,}", "expected a member name in double quotes at byte 8"),
            ("[1,]", "unexpected character ']' at byte 4"),
            ("[01]", "a number may not start with 0 at byte 3"),
            ("[1.]", "a number needs a digit after '.' at byte 4"),
            ("[-]", "a number needs a digit here at byte 3"),
            ("[1e]", "a number needs a digit in its exponent at byte 4"),
            ("['a']", "unexpected character ''' at byte 2"),
            ("[\"a\nb\"]", "control character 0xA in a string (it must be escaped) at byte 4"),
            ("[\"\\x\"]", "unknown escape \\'x' at byte 4"),
            ("[\"\\u12\"]", "a \\u escape needs four hex digits at byte 7"),
            ("[\"\\ud83d\"]", "a \\u escape names half of a surrogate pair at byte 9"),
            ("[\"\\ude00\"]", "a \\u escape names half of a surrogate pair at byte 9"),
            ("{\"a\" 1}", "expected ':' after a member name at byte 6"),
            ("[1] [2]", "unexpected text after the value at byte 5"),
            ("[tru]", "unexpected character 't' at byte 2"),
            ("/* c */ 1", "unexpected character '/' at byte 1"),
            ("{\"a\":1", "the text ends inside an object at byte 7"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try JSONParser.parse(Array(text.utf8)), text) { error in
                XCTAssertEqual((error as? JSONSyntaxError)?.description, reason, text)
            }
            if !trailingCommas.contains(text) {
                XCTAssertThrowsError(try JSONSerialization.jsonObject(with: Data(text.utf8), options: [.fragmentsAllowed]),
                                     "Foundation reads \(text.debugDescription), so it is not a case of invalid JSON")
            }
        }
        let invalidUTF8: [UInt8] = [UInt8(ascii: "\""), 0xC3, 0x28, UInt8(ascii: "\"")]
        XCTAssertThrowsError(try JSONParser.parse(invalidUTF8)) { error in
            XCTAssertEqual((error as? JSONSyntaxError)?.description, "a string is not valid UTF-8 at byte 2")
        }
    }

    func testDeepNestingIsAnErrorNotACrash() {
        let deep = Array(repeating: UInt8(ascii: "["), count: 100_000)
        XCTAssertThrowsError(try JSONParser.parse(deep)) { error in
            XCTAssertEqual((error as? JSONSyntaxError)?.reason, "nested more than 512 levels deep")
        }
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        XCTAssertNoThrow(try JSONParser.parse(Array(allowed.utf8)))
    }

    /// Foundation gives the same kind of error; for a number out of range it loses the path, which
    /// this coder keeps (the control socket's refusal then names the field).
    func testDecodingErrorsAreTheKindsFoundationGivesWithTheirPath() throws {
        struct Outer: Codable { var inner: [Inner] }
        struct Inner: Codable { var count: Int8; var name: String }
        let cases: [(String, String)] = [
            (#"{"inner":[{"count":1}]}"#, "keyNotFound name at inner.0"),
            (#"{"inner":[{"count":"1","name":"a"}]}"#, "typeMismatch at inner.0.count"),
            (#"{"inner":[{"count":null,"name":"a"}]}"#, "valueNotFound at inner.0.count"),
            (#"{"inner":[{"count":300,"name":"a"}]}"#, "dataCorrupted at inner.0.count"),
            (#"{"inner":[{"count":1.5,"name":"a"}]}"#, "dataCorrupted at inner.0.count"),
            (#"{"inner":{}}"#, "typeMismatch at inner"),
            (#"[]"#, "typeMismatch at "),
            (#"{"inner":[1}"#, "dataCorrupted at "),
        ]
        func summary(_ error: any Error) -> String {
            func path(_ context: DecodingError.Context) -> String {
                context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".")
            }
            switch error as? DecodingError {
            case let .keyNotFound(key, context): return "keyNotFound \(key.stringValue) at \(path(context))"
            case let .typeMismatch(_, context): return "typeMismatch at \(path(context))"
            case let .valueNotFound(_, context): return "valueNotFound at \(path(context))"
            case let .dataCorrupted(context): return "dataCorrupted at \(path(context))"
            default: return "\(error)"
            }
        }
        for (text, expected) in cases {
            XCTAssertThrowsError(try JSON.decode(Outer.self, from: Array(text.utf8)), text) { error in
                XCTAssertEqual(summary(error), expected, text)
            }
            XCTAssertThrowsError(try JSONDecoder().decode(Outer.self, from: Data(text.utf8)), text) { error in
                let kind = { (summary: String) in summary.prefix { $0 != " " } }
                XCTAssertEqual(kind(summary(error)), kind(expected), "Foundation, \(text)")
            }
        }
    }

    func testIntegersAreNeverReadThroughADouble() throws {
        XCTAssertEqual(try JSON.decode([Int64].self, from: Array("[9223372036854775807,-9223372036854775808]".utf8)),
                       [.max, .min])
        XCTAssertEqual(try JSON.decode([UInt64].self, from: Array("[18446744073709551615]".utf8)), [.max])
        XCTAssertThrowsError(try JSON.decode([Int64].self, from: Array("[9223372036854775808]".utf8)))
        XCTAssertThrowsError(try JSON.decode([Double].self, from: Array("[1e400]".utf8)))
        XCTAssertThrowsError(try JSON.encode([Double.nan]))
    }

    func testDamagedDocumentsNeverTrapAndWhatIsReadWritesBackToTheSameValue() throws {
        var random = SeededRandom(state: 7)
        let alphabet = Array(#"{}[]":,-+.0123456789eEtrufalsn \"#.utf8) + [0x00, 0x0A, 0xC3, 0xFF]
        var accepted = 0
        for _ in 0..<3_000 {
            var bytes = try JSON.encode(Self.sample(&random))
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = alphabet.randomElement(using: &random)!
                case 1: bytes.remove(at: index)
                default: bytes.insert(alphabet.randomElement(using: &random)!, at: index)
                }
            }
            guard let value = try? JSONParser.parse(bytes) else { continue }
            accepted += 1
            XCTAssertEqual(try JSONParser.parse(JSONWriter.write(value, format: JSONFormat(sortedKeys: false))), value)
            // Foundation refuses a number beyond Double's range while parsing; this parser leaves
            // the range to the decoder, which names the field.
            do {
                _ = try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
            } catch where "\(error)".contains("is not representable") {
            } catch {
                XCTFail("ours read what Foundation refuses (\(error)): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        XCTAssertGreaterThan(accepted, 100, "too few damaged documents were still JSON to say anything")
    }
}
