import LEDLanguage
import XCTest

final class WaveformTests: XCTestCase {
    func testParsesTheTextFormAndPrintsItBack() throws {
        let blink = try Waveform.parse("500ms on,  1500ms off").get()
        XCTAssertEqual(blink, .blink(on: .milliseconds(500), off: .milliseconds(1500)))
        XCTAssertEqual(blink.description, "500ms on, 1500ms off")
        XCTAssertEqual(try Waveform.parse("on").get(), .on)
        XCTAssertEqual(try Waveform.parse(" off ").get(), .off)
    }

    func testRejectsNonsenseWithAnExplanation() {
        for bad in ["", "blink", "500 on", "500ms maybe", "5ms on, 5ms off", "500ms on 500ms off"] {
            guard case let .failure(error) = Waveform.parse(bad) else {
                return XCTFail("'\(bad)' should be rejected")
            }
            XCTAssertFalse(error.message.isEmpty)
        }
    }

    func testACycleOfOneLevelIsSteadyAndNeverWakes() throws {
        let steady = try Waveform.parse("300ms on, 200ms on").get()
        XCTAssertTrue(steady.isSteady)
        XCTAssertNil(steady.nextChange(after: .seconds(7)))
    }

    func testLevelsAndNextChangeFollowTheCycle() {
        let wave = Waveform.blink(on: .milliseconds(100), off: .milliseconds(300))
        XCTAssertTrue(wave.level(at: .zero))
        XCTAssertTrue(wave.level(at: .milliseconds(99)))
        XCTAssertFalse(wave.level(at: .milliseconds(100)))
        XCTAssertTrue(wave.level(at: .milliseconds(400)))
        XCTAssertEqual(wave.nextChange(after: .zero), .milliseconds(100))
        XCTAssertEqual(wave.nextChange(after: .milliseconds(150)), .milliseconds(400))
        XCTAssertEqual(wave.nextChange(after: .milliseconds(4_050)), .milliseconds(4_100))
    }

    func testPlayerWakesOnlyForRealChanges() {
        let language = LEDLanguage.standard
        let steady = PatternPlayer(leds: language.leds, pattern: language.pattern(for: .checkedIn), startedAt: .seconds(10))
        XCTAssertEqual(steady.levels(at: .seconds(11)), [true, false, false])
        XCTAssertNil(steady.nextChange(after: .seconds(11)))

        let fault = PatternPlayer(leds: language.leds, pattern: language.pattern(for: .fault), startedAt: .seconds(10))
        XCTAssertEqual(fault.levels(at: .seconds(10)), [false, true, false])
        XCTAssertEqual(fault.levels(at: .seconds(10) + .milliseconds(250)), [false, false, true])
        XCTAssertEqual(fault.nextChange(after: .seconds(10)), .seconds(10) + .milliseconds(250))
    }

    func testEveryIndicatorButStartingLightsSomethingAndPatternsAreDistinct() {
        let language = LEDLanguage.standard
        let shown = Indicator.allCases.filter { $0 != .starting }.map { language.pattern(for: $0) }
        XCTAssertEqual(Set(shown).count, shown.count, "two indicators share a pattern")
        for pattern in shown {
            XCTAssertTrue(pattern.waveforms.values.contains { $0 != .off })
        }
    }
}
