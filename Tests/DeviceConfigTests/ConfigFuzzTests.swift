import ConfigFile
import DeviceConfig
import TestSupport
import XCTest

/// Property: whatever the text, parsing ends in a document or a positioned error, and loading ends
/// in a configuration or a non-empty list of problems; nothing traps. Deterministic (seeded).
final class ConfigFuzzTests: XCTestCase {
    /// Characters that matter to the grammar, plus awkward ones.
    static let alphabet: [Unicode.Scalar] = Array("[]=\"'\\#\n\r,.{}-+_: \t0189uUxeEabtrfns".unicodeScalars)
        + ["\u{0}", "\u{7F}", "\u{1}", "é", "\u{1F600}", "\u{FEFF}", "\u{2028}"]

    static let snippets = [
        "[check_in]\ninterval = \"24h\"\nreminder = \"2h\"\n",
        "[button]\ndebounce = \"30ms\"\nline = 17\nactive_low = true\nbias = \"pull-up\"\n",
        "[leds]\norder = [\"green\", \"amber\",\n  \"red\", # c\n]\n[leds.green]\nline = \"GPIO5\"\n",
        "[patterns.overdue]\nred = \"500ms on, 500ms off\"\n",
        "a = \"\\u00E9\\n\\t\" # x\r\nb = 'lit'\nc = -1_000\n[x.\"y z\".w]\n",
        "[simulator]\nchatter_edges = 20\nterminal = \"auto\"\n[log]\nlevel = \"debug\"\n",
    ]

    func testRandomAndMutatedInputsNeverTrap() throws {
        var generator = SeededRandom(state: 0x5EED_2026)
        let corpus = [try ExampleFile.text()] + Self.snippets
        var parsed = 0
        var refused = 0
        var loaded = 0
        for round in 0..<4000 {
            let scalars: [Unicode.Scalar]
            if round % 4 == 3 {
                let length = Int.random(in: 0...200, using: &generator)
                scalars = (0..<length).map { _ in Self.alphabet.randomElement(using: &generator) ?? " " }
            } else {
                scalars = mutate(corpus.randomElement(using: &generator) ?? "", corpus: corpus, using: &generator)
            }
            let text = String(String.UnicodeScalarView(scalars))
            let lineCount = scalars.filter { $0 == "\n" }.count + 1
            do {
                let document = try ConfigDocument.parse(text)
                parsed += 1
                XCTAssertEqual(document.tables.first?.path, [], "round \(round)")
                for entry in document.tables.flatMap(\.entries) {
                    XCTAssertTrue((1...lineCount).contains(entry.value.line), "round \(round): \(entry)")
                    XCTAssertGreaterThanOrEqual(entry.value.column, 1, "round \(round)")
                }
            } catch {
                refused += 1
                XCTAssertTrue((1...lineCount).contains(error.line), "round \(round): \(error) in \(lineCount) lines")
                XCTAssertGreaterThanOrEqual(error.column, 1, "round \(round)")
                XCTAssertFalse(error.message.isEmpty, "round \(round)")
            }
            switch DeviceConfiguration.load(text: text, path: "fuzz.toml", environment: ["HOME": "/home/test"]) {
            case .success:
                loaded += 1
            case .failure(let errors):
                XCTAssertFalse(errors.problems.isEmpty, "round \(round)")
                for problem in errors.problems {
                    guard case .file(let path, let line, let column) = problem.source else {
                        XCTFail("round \(round): unexpected source in \(problem)")
                        continue
                    }
                    XCTAssertEqual(path, "fuzz.toml")
                    XCTAssertTrue((1...lineCount).contains(line) && column >= 1, "round \(round): \(problem)")
                }
            }
        }
        // The generator must exercise both outcomes, or this test proves nothing.
        XCTAssertGreaterThan(parsed, 200, "too few inputs parsed")
        XCTAssertGreaterThan(refused, 200, "too few inputs refused")
        XCTAssertGreaterThan(loaded, 20, "too few inputs loaded")
    }

    func testPathologicalInputsEndInErrorsNotCrashes() {
        let cases = [
            "a = " + String(repeating: "[", count: 100_000),
            "a = [" + String(repeating: "1,", count: 50_000),
            String(repeating: "[a]\n", count: 2),
            "a = \"" + String(repeating: "\\", count: 100_001),
            String(repeating: "#", count: 100_000) + "\u{0}",
            "[" + String(repeating: "a.", count: 20_000) + "]",
            "a = " + String(repeating: "9", count: 10_000),
        ]
        for text in cases {
            XCTAssertThrowsError(try ConfigDocument.parse(text), "\(text.prefix(20))…")
        }
        let deep = "[" + String(repeating: "a.", count: 15) + "a]\nk = 1"
        XCTAssertEqual(try ConfigDocument.parse(deep).tables.last?.path.count, 16)
        if case .success = DeviceConfiguration.load(text: deep, path: "x", environment: ["HOME": "/h"]) {
            XCTFail("an unknown 16-level table must be refused")
        }
    }

    private func mutate(
        _ text: String, corpus: [String], using generator: inout SeededRandom
    ) -> [Unicode.Scalar] {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...6, using: &generator) {
            let position = scalars.isEmpty ? 0 : Int.random(in: 0..<scalars.count, using: &generator)
            let symbol = Self.alphabet.randomElement(using: &generator) ?? " "
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where !scalars.isEmpty:
                scalars[position] = symbol
            case 1:
                scalars.insert(symbol, at: position)
            case 2 where !scalars.isEmpty:
                let end = min(scalars.count, position + Int.random(in: 1...12, using: &generator))
                scalars.removeSubrange(position..<end)
            case 3 where !scalars.isEmpty:
                let end = min(scalars.count, position + Int.random(in: 1...40, using: &generator))
                scalars.insert(contentsOf: scalars[position..<end], at: position)
            case 4:
                scalars = Array(scalars.prefix(position))
            default:
                let other = Array((corpus.randomElement(using: &generator) ?? "").unicodeScalars)
                let cut = other.isEmpty ? 0 : Int.random(in: 0..<other.count, using: &generator)
                scalars = Array(scalars.prefix(position)) + other[cut...]
            }
        }
        return scalars
    }
}
