import CheckInModels
import HealthchecksSyncFeature
import UplinkClient
import XCTest

/// The check-in check for the last-chance grace, daily windows (a cron check in the device's zone)
/// and away mode (paused).
final class CheckPlanTests: XCTestCase {
    func window(_ from: Int, _ to: Int, startMinute: Int = 0) -> DailyWindow {
        DailyWindow(start: ClockTime(hour: from, minute: startMinute)!, end: ClockTime(hour: to, minute: 0)!)
    }

    func testTheGraceIsAddedSoTheCheckGoesDownWhenTheDeviceTellsPeople() {
        let timings = CheckTimings.checkIn(.default, grace: .seconds(900))
        XCTAssertEqual(timings.timeout, .seconds(22 * 3600))
        XCTAssertEqual(timings.grace, .seconds(2 * 3600 + 900))
    }

    func testWindowsThatAreOneCronExpressionMakeACronCheck() throws {
        let daily = DailySchedule(windows: [window(7, 10), window(18, 20)], overrides: [.sunday: []], timeZone: "Europe/London")
        let made = try XCTUnwrap(CheckTimings.cron(daily, zone: "Europe/London", grace: .seconds(900)))
        let cron = made.0
        XCTAssertEqual(cron, CronSchedule(expression: "0 7,18 * * 1,2,3,4,5,6", timeZone: "Europe/London"))
        XCTAssertEqual(made.grace, Duration.seconds(3 * 3600 + 900), "the longest window plus the device's grace")
        let spec = CheckTimings.specs(plan: CheckInCheckPlan(settings: .default, grace: .seconds(900), daily: daily, paused: true),
                                      heartbeat: .seconds(900), slugPrefix: "lifesignal")[0]
        XCTAssertEqual(spec.cron, cron)
        XCTAssertTrue(spec.paused)
        XCTAssertTrue(spec.description.contains("daily windows 07:00-10:00, 18:00-20:00; sunday none"), spec.description)
    }

    func testWindowsThatAreNotOneCronExpressionMakeAPlainCheckOfTheLongestGap() {
        // 07:30 on weekdays, 09:00 at the weekend: cron's fields would multiply into 07:00, 09:30 …
        let daily = DailySchedule(windows: [window(7, 10, startMinute: 30)], overrides: [.saturday: [window(9, 11)], .sunday: [window(9, 11)]],
                                  timeZone: "America/New_York")
        XCTAssertNil(CheckTimings.cron(daily, zone: "America/New_York", grace: .zero))
        let spec = CheckTimings.specs(plan: CheckInCheckPlan(settings: .default, grace: .seconds(600), daily: daily),
                                      heartbeat: .seconds(900), slugPrefix: "lifesignal")[0]
        XCTAssertNil(spec.cron)
        XCTAssertEqual(spec.timeout, daily.longestGap)
        XCTAssertEqual(spec.grace, .seconds(600))
    }
}
