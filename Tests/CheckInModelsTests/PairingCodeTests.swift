@testable import CheckInModels
import TestSupport
import XCTest

final class PairingCodeTests: XCTestCase {
    let mum = PairingCode(source: .mqtt(baseTopic: "lifesignal/0123456789ab"), name: "Mum", heartbeat: .seconds(90))

    // MARK: Round trips

    func testRandomCodesReadBackAsWritten() throws {
        var random = SeededRandom(state: 0x5EED_0014)
        for _ in 0..<2000 {
            let code = Self.randomCode(using: &random)
            XCTAssertNil(code.problem, "\(code)")
            XCTAssertEqual(try PairingCode(parsing: code.text), code, code.text)
        }
    }

    func testCaseSpacesAndDashesDoNotMatter() throws {
        var random = SeededRandom(state: 0x5EED_0015)
        for _ in 0..<300 {
            let code = Self.randomCode(using: &random)
            let bare = code.text.filter { $0 != "-" }
            XCTAssertEqual(try PairingCode(parsing: bare.lowercased()), code)
            XCTAssertEqual(try PairingCode(parsing: code.text.replacingDashes(with: " ")), code)
            XCTAssertEqual(try PairingCode(parsing: "  " + code.text.lowercased() + " "), code)
        }
    }

    func testLettersPeopleConfuseAreReadAsTheDigitsTheyLookLike() throws {
        let text = mum.text
        let swapped = String(text.prefix(4)) + text.dropFirst(4).map { $0 == "1" ? "l" : $0 == "0" ? "O" : $0 }
        XCTAssertEqual(try PairingCode(parsing: swapped), mum)
    }

    /// A code printed by one release is read by every later one: the format is fixed.
    func testTheWorkedExampleOfTheDocumentation() throws {
        XCTAssertEqual(mum.payload, [0x00, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0x5A, 0x4D, 0x75, 0x6D])
        XCTAssertEqual(mum.text, "LS1-000J-6HB7-H6NN-MKBN-DMF9-3")
        XCTAssertEqual(try PairingCode(parsing: "ls1 000j 6hb7 h6nn mkbn dmf9 3"), mum)
    }

    func testTheDefaultTopicIsShortAndOthersAreKeptWhole() throws {
        XCTAssertLessThanOrEqual(mum.text.filter { $0 != "-" }.count, 3 + 21)
        for topic in ["home/lifesignal/0123456789ab", "lifesignal/kitchen", "lifesignal/0123456789AB", "lifesignal/0123456789abcd",
                      "maison/grand-mère", "a"] {
            let code = PairingCode(source: .mqtt(baseTopic: topic), name: "Mum", heartbeat: .seconds(180))
            XCTAssertEqual(try PairingCode(parsing: code.text).source, .mqtt(baseTopic: topic))
        }
    }

    // MARK: Damage

    func testEveryMistypedCharacterAndEverySwapOfNeighboursIsRefused() {
        var random = SeededRandom(state: 0x5EED_0016)
        for code in [mum] + (0..<6).map({ _ in Self.randomCode(using: &random) }) {
            let symbols = Array(code.text.dropFirst(3).filter { $0 != "-" })
            for index in symbols.indices {
                for replacement in PairingSymbols.alphabet where replacement != symbols[index] {
                    var typed = symbols
                    typed[index] = replacement
                    assertRefused("LS1" + String(typed), as: .damaged)
                }
                if index + 1 < symbols.count, symbols[index] != symbols[index + 1] {
                    var typed = symbols
                    typed.swapAt(index, index + 1)
                    assertRefused("LS1" + String(typed), as: .damaged)
                }
            }
        }
    }

    func testEveryTruncationIsRefused() {
        let text = mum.text
        for length in 0..<text.count {
            XCTAssertThrowsError(try PairingCode(parsing: String(text.prefix(length))), "\(length)")
        }
        assertRefused(String(text.prefix(13)), as: .tooShort, saying: "too short: 8 characters after LS1")
    }

    // MARK: Each refusal

    func testEachRefusalSaysWhatIsWrong() {
        let table: [(String, PairingCodeError.Kind, String)] = [
            ("", .tooShort, "empty: type the code `lifesignalctl pair` shows"),
            ("  - ", .tooShort, "empty"),
            ("LS", .tooShort, "too short (it should start with LS1)"),
            ("hello", .notAPairingCode, "not a LifeSignal pairing code (it should start with LS1)"),
            ("https://example.com", .notAPairingCode, "not a LifeSignal pairing code (it should start with LS1)"),
            ("LS0-ABCD", .notAPairingCode, "not a LifeSignal pairing code (it should start with LS1)"),
            ("LS2-000J-6HB7", .newerRelease, "from a newer release (LS2): update LifeSignal on this device"),
            ("LS1-000J-6HB7-H6NU-MKBN-DMF9-3", .invalidCharacter, "character 18, \"U\", is not in any pairing code"),
            ("LS1-000J-6HB7-H6NN-MKBN-DMF9-4", .damaged, "damaged: the check digits do not match — check for a mistyped"),
            ("LS1-000J-6HB7-H6NN-MKBN-DMF9-3X", .damaged, "damaged: the check digits do not match"),
            (String(repeating: "0", count: 300), .notAPairingCode, "not a LifeSignal pairing code"),
            ("LS1" + String(repeating: "0", count: 300), .tooLong, "too long: 300 characters after LS1"),
            (String(repeating: "A", count: 10_000), .tooLong, "too long (10000 bytes)"),
        ]
        for (text, kind, message) in table {
            assertRefused(text, as: kind, saying: message)
        }
    }

    func testControlCharactersAreRefusedAndShownEscaped() throws {
        let text = "LS1-0G14\u{1B}[2J-8T5K"
        let error = try XCTUnwrap(refusal(text))
        XCTAssertEqual(error.kind, .invalidCharacter)
        XCTAssertEqual(error.problem, "character 9, \"\\u001B\", is not in any pairing code: they have only letters (no U), digits and dashes")
        XCTAssertFalse(error.description.unicodeScalars.contains { TerminalText.needsEscape($0) }, error.description)
        for hostile in ["LS1\u{0}0G14", "LS1\t0G14", "LS1\n0G14", "LS1-0G14-8T5K-\u{202E}", "LS1-0G14-８T5K"] {
            assertRefused(hostile, as: .invalidCharacter)
        }
    }

    func testALongInputIsShownShortened() throws {
        let error = try XCTUnwrap(refusal(String(repeating: "A", count: 10_000)))
        XCTAssertLessThan(error.description.count, 200)
    }

    /// Codes whose check digits are right but whose content no `pair` writes: refused, named.
    func testWellFormedCodesWithUnusableContentAreRefused() {
        let table: [(PairingCode, String)] = [
            (PairingCode(source: .mqtt(baseTopic: "lifesignal/+"), name: "Mum", heartbeat: .seconds(90)), "has a wildcard (+ or #)"),
            (PairingCode(source: .mqtt(baseTopic: "home/#"), name: "Mum", heartbeat: .seconds(90)), "has a wildcard (+ or #)"),
            (PairingCode(source: .mqtt(baseTopic: "$SYS/x"), name: "Mum", heartbeat: .seconds(90)), "starts with $"),
            (PairingCode(source: .mqtt(baseTopic: "a\u{0}b"), name: "Mum", heartbeat: .seconds(90)), "has a control character"),
            (PairingCode(source: .mqtt(baseTopic: ""), name: "Mum", heartbeat: .seconds(90)), "the MQTT base topic is empty"),
            (PairingCode(source: .backend(id: "a b"), name: "Mum", heartbeat: .seconds(90)), "the backend id \"a b\" is not"),
            (PairingCode(source: .healthchecks(check: "Check-In"), name: "Mum", heartbeat: .seconds(90)), "neither a UUID nor a slug"),
            (PairingCode(source: .backend(id: "dev-1"), name: "", heartbeat: .seconds(90)), "the name is empty"),
            (PairingCode(source: .backend(id: "dev-1"), name: "   ", heartbeat: .seconds(90)), "the name is empty"),
            (PairingCode(source: .backend(id: "dev-1"), name: "Mum\u{1B}[2J", heartbeat: .seconds(90)), "has a control character"),
            (PairingCode(source: .backend(id: "dev-1"), name: "Mum", heartbeat: .seconds(5)), "heartbeat allowance 5 s is outside"),
            (PairingCode(source: .backend(id: "dev-1"), name: "Mum", heartbeat: .zero), "heartbeat allowance 0 s is outside"),
        ]
        for (code, message) in table {
            XCTAssertNotNil(code.problem, "\(code)")
            XCTAssertTrue(code.problem?.hasPrefix("the ") ?? false)
            assertRefused(code.text, as: .unusable, saying: message)
        }
    }

    func testTheEncoderSaysWhatItCannotCarry() {
        XCTAssertEqual(PairingCode(source: .backend(id: "dev-1"), name: String(repeating: "é", count: 25), heartbeat: .seconds(90)).problem,
                       "the name \"\(String(repeating: "é", count: 25))\" is longer than 48 bytes: choose a shorter one")
        XCTAssertEqual(PairingCode(source: .backend(id: "dev-1"), name: "Mum", heartbeat: .milliseconds(90_500)).problem,
                       "the heartbeat allowance is not a whole number of seconds")
        XCTAssertNotNil(PairingCode(source: .mqtt(baseTopic: String(repeating: "t", count: 101)), name: "Mum", heartbeat: .seconds(90)).problem)
        XCTAssertNil(PairingCode(source: .mqtt(baseTopic: String(repeating: "t", count: 100)), name: "Mum", heartbeat: .seconds(90)).problem)
    }

    func testInvalidUTF8AfterDecodingIsRefused() {
        // The name's bytes are a lone continuation byte and a truncated sequence; the checks are right.
        let source = PairingContent.sourceBytes(.backend(id: "dev-1"))
        for name: [UInt8] in [[0x80], [0x4D, 0xE2, 0x82], [0xFF, 0xFE]] {
            assertRefused(Self.text(of: source + [90] + name), as: .unusable, saying: "the name is not valid UTF-8")
        }
        let topic: [UInt8] = [PairingContent.SourceTag.mqttTopic.rawValue, 2, 0xC3, 0x28]
        assertRefused(Self.text(of: topic + [90] + Array("Mum".utf8)), as: .unusable, saying: "its address is not valid UTF-8")
    }

    func testAKindOfSourceFromALaterReleaseAsksForAnUpdate() {
        assertRefused(Self.text(of: [9, 1, 0x41, 90, 0x4D]), as: .newerRelease, saying: "from a newer release: it names a kind of source (9)")
    }

    func testAHeartbeatNotInItsShortestFormIsRefused() {
        let source = PairingContent.sourceBytes(.backend(id: "dev-1"))
        assertRefused(Self.text(of: source + [0xDA, 0x00] + Array("Mum".utf8)), as: .unusable, saying: "heartbeat allowance")
        assertRefused(Self.text(of: source + [0xFF, 0xFF, 0xFF, 0x01] + Array("Mum".utf8)), as: .unusable, saying: "heartbeat allowance")
    }

    func testAnyBytesAtAllAreReadWithoutCrashing() {
        var random = SeededRandom(state: 0x5EED_0017)
        for _ in 0..<3000 {
            let bytes = (0..<Int.random(in: 5...60, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            if let code = try? PairingCode(parsing: Self.text(of: bytes)) {
                XCTAssertNil(code.problem, "\(bytes)")
            }
        }
    }

    // MARK: Helpers

    /// A code with these bytes and the right check symbols, as a hostile encoder could write it.
    static func text(of bytes: [UInt8]) -> String {
        let symbols = PairingSymbols.symbols(of: bytes)
        return "LS1" + String((symbols + PairingSymbols.check(symbols)).map { PairingSymbols.alphabet[Int($0)] })
    }

    static func randomCode(using random: inout SeededRandom) -> PairingCode {
        let hex = Array("0123456789abcdef")
        func hexDigits(_ count: Int) -> String { String((0..<count).map { _ in hex.randomElement(using: &random)! }) }
        let uuid = [8, 4, 4, 4, 12].map { hexDigits($0) }.joined(separator: "-")
        let source: DependentSource = switch Int.random(in: 0..<6, using: &random) {
        case 0: .mqtt(baseTopic: "lifesignal/" + hexDigits(12))
        case 1: .mqtt(baseTopic: randomText(from: Array("abcxyz/_-. é漢🙂ABC019"), bytes: 1...100, using: &random))
        case 2: .backend(id: randomText(from: Array("abcXYZ019-_.:"), bytes: 1...64, using: &random))
        case 3: .backend(id: uuid)
        case 4: .healthchecks(check: uuid)
        default: .healthchecks(check: randomText(from: Array("abcz019-_"), bytes: 1...100, using: &random))
        }
        let name = randomText(from: Array("AMumZz 'éßø漢字🙂-"), bytes: 1...48, using: &random)
        let heartbeat = Duration.seconds(Int64.random(in: 10...604_800, using: &random))
        return PairingCode(source: source, name: name.first == " " ? "M" + name.dropFirst() : name, heartbeat: heartbeat)
    }

    static func randomText(from characters: [Character], bytes: ClosedRange<Int>, using random: inout SeededRandom) -> String {
        let limit = Int.random(in: bytes, using: &random)
        var text = ""
        while true {
            let next = characters.randomElement(using: &random)!
            if text.utf8.count + String(next).utf8.count > limit { break }
            text.append(next)
        }
        return text.isEmpty ? "a" : text
    }

    func refusal(_ text: String) -> PairingCodeError? {
        do {
            let code = try PairingCode(parsing: text)
            XCTFail("\(TerminalText.quoted(text)) was read as \(code)")
            return nil
        } catch {
            return error
        }
    }

    func assertRefused(_ text: String, as kind: PairingCodeError.Kind, saying message: String? = nil,
                       file: StaticString = #filePath, line: UInt = #line) {
        guard let error = refusal(text) else { return }
        XCTAssertEqual(error.kind, kind, "\(error)", file: file, line: line)
        if let message {
            XCTAssertTrue(error.problem.hasPrefix(message) || error.problem.contains(message), "\(error.problem)", file: file, line: line)
        }
    }
}

extension String {
    fileprivate func replacingDashes(with replacement: String) -> String {
        split(separator: "-", omittingEmptySubsequences: false).joined(separator: replacement)
    }
}
