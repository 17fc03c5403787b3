import CheckInModels
import XCTest

/// `DurationText` is the one parser of durations people write (config, CLI, control requests).
final class DurationTextTests: XCTestCase {
    func testEachUnitOnceLargestFirst() {
        XCTAssertEqual(DurationText.parse("1h30m"), .seconds(5400))
        XCTAssertEqual(DurationText.parse("1d2h3m4s5ms"), .seconds(93_784) + .milliseconds(5))
        XCTAssertEqual(DurationText.parse("90m"), .seconds(5400))
        XCTAssertEqual(DurationText.parse("1s500ms"), .milliseconds(1500))
        XCTAssertEqual(DurationText.parse(" 24h "), .seconds(86_400))
        XCTAssertEqual(DurationText.parse("0s"), .zero)

        // Repeated units used to add up ("12h12h" = 24 h), and a smaller unit first was accepted.
        for text in ["12h12h", "30m1h", "1s1h", "500ms1s", "1m1m", "1h1d", "5s5s5s"] {
            XCTAssertNil(DurationText.parse(text), text)
        }
    }

    func testFormattedDurationsParseBack() {
        for duration in [Duration.seconds(86_400), .seconds(5400), .milliseconds(1500), .seconds(8 * 86_400 + 3600), .zero] {
            XCTAssertEqual(DurationText.parse(DurationText.format(duration)), duration, DurationText.format(duration))
        }
    }

    func testRefusalsSayWhatIsWrong() {
        XCTAssertEqual(message("12h12h"),
                       "the unit h appears twice; write each unit once, largest first, e.g. 1h30m")
        XCTAssertEqual(message("30m1h"),
                       "h comes after m; write the units largest first (d, h, m, s, ms), e.g. 1h30m")
        XCTAssertEqual(message(""), "it is empty")
        XCTAssertEqual(message("garbage"),
                       "it must start with a whole number, e.g. 150ms, 4s, 1h30m")
        XCTAssertEqual(message("-5s"), "it is negative")
        XCTAssertEqual(message("15"),
                       "15 has no unit; add one of d, h, m, s, ms, e.g. 15s")
        XCTAssertEqual(message("1x"),
                       "1 is followed by an unknown unit; the units are d, h, m, s and ms")
        XCTAssertEqual(message("1.5h"),
                       "1 is followed by an unknown unit; the units are d, h, m, s and ms")
        XCTAssertEqual(message("99999999999999d"),
                       "the number 99999999999999 is too long")
        XCTAssertEqual(message("999999999999d"), "it is too long a duration")
    }

    func testUnitRepeatsAndOrderAreToldApart() {
        guard case let .failure(order) = DurationText.parsing("30m1h"),
              case let .failure(garbage) = DurationText.parsing("soon") else { return XCTFail("accepted") }
        XCTAssertTrue(order.isAboutUnitOrder)
        XCTAssertFalse(garbage.isAboutUnitOrder)
    }

    private func message(_ text: String) -> String? {
        guard case let .failure(error) = DurationText.parsing(text) else { return nil }
        return error.message
    }

    /// How a duration reads in a message or a ping's body: units a person reads, never `7m48s137ms972us`.
    func testMessagesReadDurationsAsPeopleSayThem() {
        XCTAssertEqual(DurationText.humane(.microseconds(468_137_972)), "7 min 48 s")
        XCTAssertEqual(DurationText.humane(.seconds(45)), "45 s")
        XCTAssertEqual(DurationText.humane(.milliseconds(250)), "250 ms")
        XCTAssertEqual(DurationText.humane(.seconds(3 * 3600 + 12 * 60 + 5)), "3 h 12 min")
        XCTAssertEqual(DurationText.humane(.seconds(2 * 86_400 + 4 * 3600)), "2 d 4 h")
        XCTAssertEqual(DurationText.humane(.zero), "0 s")
    }
}
