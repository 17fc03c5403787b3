import Foundation
import LEDLanguage
import XCTest

/// The README's LED table is what people read on the device: it must say exactly what the code does.
final class ReadmeTableTests: XCTestCase {
    func testReadmeLEDTableMatchesTheStandardLanguage() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../README.md").standardized
        let text = try String(contentsOf: readme, encoding: .utf8)
        let language = LEDLanguage.standard
        var rows: [String: [String]] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            rows[cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))] = Array(cells.dropFirst(2))
        }
        for indicator in Indicator.allCases {
            guard let cells = rows[indicator.rawValue] else {
                XCTFail("README has no LED table row for \(indicator.rawValue)")
                continue
            }
            let expected = language.leds.map { language.pattern(for: indicator).waveform(for: $0).description }
            XCTAssertEqual(cells, expected, "README row for \(indicator.rawValue)")
        }
    }
}
