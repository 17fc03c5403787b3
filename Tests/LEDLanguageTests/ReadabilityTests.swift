import LEDLanguage
import XCTest

/// LEDs anyone can read (docs/leds.md): on the standard table every indicator can be told from
/// every other by which lights it uses and how they blink, never only by colour and whenever one
/// happens to look; nothing flashes more than three times a second; urgent indicators blink
/// faster than those that only ask for attention; no critical indicator uses a blue light.
final class ReadabilityTests: XCTestCase {
    let language = LEDLanguage.standard
    /// Every standard cycle divides it (500 ms … 3 s), so a pattern repeats within it.
    static let period = 6000, step = 10

    /// Which lights are on at each 10 ms step of the period, by position only.
    func samples(_ indicator: Indicator, in language: LEDLanguage = .standard) -> [UInt8] {
        let pattern = language.pattern(for: indicator)
        return stride(from: 0, to: Self.period, by: Self.step).map { millisecond in
            var bits: UInt8 = 0
            for (position, led) in language.leds.enumerated()
            where pattern.waveform(for: led).level(at: .milliseconds(millisecond)) {
                bits |= 1 << UInt8(position)
            }
            return bits
        }
    }

    /// The smallest rotation: two indicators that look the same from some moment on have the same.
    func canonical(_ samples: [UInt8]) -> [UInt8] {
        var best = samples
        for shift in 1..<samples.count {
            let rotated = Array(samples[shift...] + samples[..<shift])
            if rotated.lexicographicallyPrecedes(best) { best = rotated }
        }
        return best
    }

    func testEveryIndicatorDiffersFromEveryOtherByPositionOrPatternAloneWhenEverOneLooks() {
        var seen: [[UInt8]: Indicator] = [:]
        for indicator in Indicator.allCases {
            let drawn = canonical(samples(indicator))
            XCTAssertNil(seen[drawn], "\(indicator.rawValue) looks like \(seen[drawn]?.rawValue ?? "") without its colours")
            seen[drawn] = indicator
        }
        XCTAssertEqual(seen.count, Indicator.allCases.count)
    }

    /// Rising edges (a light coming on) within the steps `from..<to` of one LED's samples, twice over.
    func flashes(_ led: LED, of indicator: Indicator, in language: LEDLanguage = .standard) -> [Int] {
        let waveform = language.pattern(for: indicator).waveform(for: led)
        let levels = stride(from: 0, to: Self.period * 2, by: Self.step).map { waveform.level(at: .milliseconds($0)) }
        return levels.indices.dropFirst().filter { levels[$0] && !levels[$0 - 1] }.map { $0 * Self.step }
    }

    /// The most flashes of one light within any one second.
    func mostFlashesInASecond(_ led: LED, of indicator: Indicator, in language: LEDLanguage = .standard) -> Int {
        let edges = flashes(led, of: indicator, in: language)
        return edges.indices.map { index in edges[index...].prefix { $0 < edges[index] + 1000 }.count }.max() ?? 0
    }

    func testNothingFlashesMoreThanThreeTimesASecond() {
        for indicator in Indicator.allCases {
            for led in language.leds {
                let most = mostFlashesInASecond(led, of: indicator)
                XCTAssertLessThanOrEqual(most, 3, "\(indicator.rawValue): the \(led.name) light flashes \(most) times in a second")
            }
        }
    }

    /// Flashes per second over the whole cycle, of its busiest light (0 for steady lights).
    func blinkRate(_ indicator: Indicator, in language: LEDLanguage = .standard) -> Double {
        language.leds.map { Double(flashes($0, of: indicator, in: language).count) / Double(Self.period * 2 / 1000) }.max() ?? 0
    }

    func testUrgentIndicatorsBlinkFasterThanThoseThatAskForAttention() {
        let urgent = Indicator.allCases.filter { $0.urgency == .urgent }
        let attention = Indicator.allCases.filter { $0.urgency == .attention }
        XCTAssertFalse(urgent.isEmpty)
        XCTAssertFalse(attention.isEmpty)
        let slowestUrgent = urgent.map { ($0, blinkRate($0)) }.min { $0.1 < $1.1 }!
        let fastestAttention = attention.map { ($0, blinkRate($0)) }.max { $0.1 < $1.1 }!
        XCTAssertGreaterThan(slowestUrgent.1, fastestAttention.1,
                             "\(slowestUrgent.0.rawValue) (urgent, \(slowestUrgent.1)/s) must blink faster than "
                                 + "\(fastestAttention.0.rawValue) (attention, \(fastestAttention.1)/s)")
    }

    func testNoCriticalIndicatorUsesBlue() {
        for indicator in Indicator.allCases where indicator.urgency == .urgent {
            for led in language.leds where language.pattern(for: indicator).waveform(for: led) != .off {
                XCTAssertFalse(led.colour.lowercased().contains("blue"), "\(indicator.rawValue) lights the blue \(led.name) LED")
            }
        }
    }

    /// The rules catch what they are for: a copy of the table broken each way fails them.
    func testTheRulesRefuseATableThatBreaksThem() {
        var broken = LEDLanguage.standard
        broken.patterns[.away] = broken.pattern(for: .checkedInNotUploaded)
        XCTAssertEqual(canonical(samples(.away, in: broken)), canonical(samples(.checkedInNotUploaded, in: broken)))
        // The same blink shifted by half a cycle is the same to anyone who looks at a random moment.
        broken.patterns[.away] = LEDPattern(["red": .cycle([(false, .milliseconds(250)), (true, .milliseconds(250))])])
        XCTAssertEqual(canonical(samples(.away, in: broken)), canonical(samples(.overdue, in: broken)))
        // Overdue as it blinked before: slower than a pending ping.
        broken.patterns[.overdue] = LEDPattern(["red": .blink(on: .milliseconds(1000), off: .milliseconds(1000))])
        XCTAssertLessThan(blinkRate(.overdue, in: broken), blinkRate(.pingPending, in: broken))
        // The acknowledgement as it blinked before: four flashes a second.
        broken.patterns[.acknowledged] = LEDPattern(["green": .blink(on: .milliseconds(150), off: .milliseconds(150))])
        XCTAssertGreaterThan(mostFlashesInASecond(LED(name: "green", colour: "green"), of: .acknowledged, in: broken), 3)
    }
}
