import Foundation
import LEDLanguage
import XCTest

/// The README's LED table and the printable LED card are what people read beside the device:
/// they must say exactly what the code does.
final class ReadmeTableTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized

    func testReadmeLEDTableMatchesTheStandardLanguage() throws {
        let text = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let language = LEDLanguage.standard
        var rows: [String: [String]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Array(cells.dropFirst())
        }
        for indicator in Indicator.allCases {
            guard let cells = rows[indicator.rawValue] else {
                XCTFail("README has no LED table row for \(indicator.rawValue)")
                continue
            }
            let expected = language.leds.map { language.pattern(for: indicator).waveform(for: $0).description }
            XCTAssertEqual(Array(cells.dropFirst()), expected, "README row for \(indicator.rawValue)")
            XCTAssertEqual(cells.first, indicator.meaning, "README meaning of \(indicator.rawValue) (Indicator.meaning)")
        }
        XCTAssertEqual(Set(rows.keys), Set(Indicator.allCases.map(\.rawValue)), "no README row for an indicator that does not exist")
    }

    func testTheCommittedLEDCardIsTheOneTheCodeDraws() throws {
        let committed = try String(contentsOf: Self.root.appendingPathComponent("docs/led-card.svg"), encoding: .utf8)
        XCTAssertEqual(committed, LEDCard.svg(.standard), "docs/led-card.svg differs from the code: run scripts/led-card")
        let watcher = try String(contentsOf: Self.root.appendingPathComponent("docs/led-card-watcher.svg"), encoding: .utf8)
        XCTAssertEqual(watcher, LEDCard.svg(.standard, title: "What the lights on the LifeSignal watcher mean", order: LEDCard.watcherOrder),
                       "docs/led-card-watcher.svg differs from the code: run scripts/led-card")
        for indicator in LEDCard.watcherOrder {
            for line in LEDCard.wrapped(indicator.meaning, width: LEDCard.lineWidth) {
                XCTAssertTrue(watcher.contains(">\(LEDCardText.escaped(line))<"), "the watcher's card explains \(indicator.rawValue)")
            }
        }
        for indicator in LEDCard.order {
            for line in LEDCard.wrapped(indicator.meaning, width: LEDCard.lineWidth) {
                XCTAssertTrue(committed.contains(">\(LEDCardText.escaped(line))<"), "the card explains \(indicator.rawValue): \(line)")
            }
        }
    }

    func testTheCardShowsEveryIndicatorOnceEachMeaningFitsItsRowAndNoneNeedsColourToBeToldApart() {
        // A person's card and a watcher's card: between them every indicator, each once per card.
        XCTAssertEqual(Set(LEDCard.order).count, LEDCard.order.count)
        XCTAssertEqual(Set(LEDCard.watcherOrder).count, LEDCard.watcherOrder.count)
        XCTAssertEqual(Set(LEDCard.order + LEDCard.watcherOrder), Set(Indicator.allCases))
        XCTAssertFalse(LEDCard.order.contains(.dependentOverdue), "a person's card has no watcher rows")
        for indicator in Indicator.allCases {
            XCTAssertLessThanOrEqual(LEDCard.wrapped(indicator.meaning, width: LEDCard.lineWidth).count, 2, indicator.meaning)
        }
        // What the card draws for each indicator is its lights by place, each as on/off over time:
        // two indicators drawn the same could only be told apart by colour (or not at all).
        let language = LEDLanguage.standard
        var seen: [String: Indicator] = [:]
        for indicator in Indicator.allCases {
            let drawn = language.leds.map { language.pattern(for: indicator).waveform(for: $0).description }.joined(separator: " | ")
            XCTAssertNil(seen[drawn], "\(indicator.rawValue) is drawn like \(seen[drawn]?.rawValue ?? "")")
            seen[drawn] = indicator
        }
    }
}

/// The card's XML escaping, as the test reads it back.
enum LEDCardText {
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
