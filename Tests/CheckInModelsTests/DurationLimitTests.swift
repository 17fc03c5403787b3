import CheckInModels
import XCTest

/// Durations can come from outside (a server's settings, a damaged row): at the edges of what a
/// `Duration` holds, the device says "out of range" instead of trapping.
final class DurationLimitTests: XCTestCase {
    func testWholeMicrosecondsSaturatesInsteadOfTrapping() {
        XCTAssertEqual(Duration.seconds(90).wholeMicroseconds, 90_000_000)
        XCTAssertEqual(Duration.microseconds(-1_500).wholeMicroseconds, -1_500)
        XCTAssertEqual(Duration.seconds(Int64.max).wholeMicroseconds, Int64.max)
        XCTAssertEqual(Duration.seconds(Int64.min).wholeMicroseconds, -Int64.max)
        XCTAssertEqual(Duration.seconds(Int64.max / 1_000_000 + 1).wholeMicroseconds, Int64.max)
    }

    func testTheSettingsPolicyRefusesDurationsBeyondAnyClock() {
        for extreme in [Duration.seconds(Int64.max), .seconds(Int64.min), .seconds(Int64.max / 1_000_000 + 1)] {
            for settings in [CheckInSettings(interval: extreme, reminder: .seconds(7200)),
                             CheckInSettings(interval: .seconds(86_400), reminder: extreme)] {
                guard case let .failure(error) = SettingsPolicy.standard.validate(settings) else {
                    return XCTFail("\(settings) was accepted")
                }
                XCTAssertFalse(error.message.isEmpty)
            }
            XCTAssertFalse(DurationText.format(extreme).isEmpty)
        }
        XCTAssertEqual(SettingsPolicy.standard.validate(.default), .success(.default))
    }
}
