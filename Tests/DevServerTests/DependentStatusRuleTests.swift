import CheckInModels
import DevServer
import XCTest

/// How the reference backend derives a dependent's status from what their device sent: each
/// cause on its own, and the louder cause winning where two meet.
final class DependentStatusRuleTests: XCTestCase {
    let checkIn = WallTime(secondsSinceEpoch: 1_795_000_000)

    /// Checked in at `checkIn`, 24 h interval, 2 h reminder, heard from `heardAgo` before `now`.
    func facts(at now: WallTime, heardAgo: Duration = .seconds(60), alert: WallTime? = nil, away: AwaySpan? = nil,
               checkedIn: Bool = true) -> DependentFacts {
        DependentFacts(lastCheckIn: checkedIn ? checkIn : nil, lastAlert: alert, interval: .seconds(86_400), reminder: .seconds(7200),
                       away: away, lastHeard: now + (.zero - heardAgo))
    }

    func judge(after elapsed: Duration, heardAgo: Duration = .seconds(60), alert: WallTime? = nil, away: AwaySpan? = nil,
               checkedIn: Bool = true) -> (status: DependentStatus, deadline: WallTime?) {
        let now = checkIn + elapsed
        return DependentStatusRule.judge(facts(at: now, heardAgo: heardAgo, alert: alert, away: away, checkedIn: checkedIn), now: now,
                                         silenceAllowance: .seconds(1800))
    }

    func testCheckedInUntilTheReminderThenReminderUntilTheDeadlineThenOverdue() {
        let deadline = checkIn + .seconds(86_400)
        XCTAssertEqual(judge(after: .seconds(3600)).status, .checkedIn)
        XCTAssertEqual(judge(after: .seconds(3600)).deadline, deadline)
        XCTAssertEqual(judge(after: .seconds(86_400 - 7201)).status, .checkedIn)
        XCTAssertEqual(judge(after: .seconds(86_400 - 7200)).status, .reminder, "the reminder starts 2 h before the deadline")
        XCTAssertEqual(judge(after: .seconds(86_399)).status, .reminder)
        XCTAssertEqual(judge(after: .seconds(86_400)).status, .overdue, "the deadline itself is overdue")
        XCTAssertEqual(judge(after: .seconds(86_400)).deadline, deadline)
    }

    func testNoCheckInEverIsUnknownWithoutADeadline() {
        let judged = judge(after: .seconds(90_000), checkedIn: false)
        XCTAssertEqual(judged.status, .unknown)
        XCTAssertNil(judged.deadline)
    }

    func testNothingHeardForLongerThanTheAllowanceIsSilentButOverdueIsLouder() {
        XCTAssertEqual(judge(after: .seconds(7200), heardAgo: .seconds(1800)).status, .checkedIn, "exactly the allowance is not yet silent")
        XCTAssertEqual(judge(after: .seconds(7200), heardAgo: .seconds(1801)).status, .silent)
        XCTAssertEqual(judge(after: .seconds(86_000), heardAgo: .seconds(50_000)).status, .silent, "silent is louder than reminder")
        XCTAssertEqual(judge(after: .seconds(90_000), heardAgo: .seconds(50_000)).status, .overdue)
        let never = DependentFacts(lastCheckIn: checkIn, interval: .seconds(86_400), reminder: .seconds(7200), lastHeard: nil)
        XCTAssertEqual(DependentStatusRule.judge(never, now: checkIn + .seconds(60)).status, .silent, "never heard from is silent")
    }

    func testAHelpAlertAfterTheLastCheckInIsLoudestUntilTheNextCheckIn() {
        XCTAssertEqual(judge(after: .seconds(60), alert: checkIn + .seconds(30)).status, .helpAlert)
        XCTAssertEqual(judge(after: .seconds(90_000), heardAgo: .seconds(90_000), alert: checkIn + .seconds(30)).status, .helpAlert)
        XCTAssertEqual(judge(after: .seconds(60), alert: checkIn + .seconds(-30)).status, .checkedIn, "the check-in after it ends it")
        XCTAssertEqual(judge(after: .seconds(60), alert: checkIn, checkedIn: false).status, .helpAlert, "an alert before any check-in")
        let away = AwaySpan(from: checkIn, until: checkIn + .seconds(200_000))
        XCTAssertEqual(judge(after: .seconds(60), alert: checkIn + .seconds(30), away: away).status, .helpAlert, "even away")
    }

    func testAwayAsksNothingAndItsEndStartsAFreshCountdown() {
        let away = AwaySpan(from: checkIn + .seconds(3600), until: checkIn + .seconds(200_000))
        XCTAssertEqual(judge(after: .seconds(1800), away: away).status, .checkedIn, "before it begins")
        let during = judge(after: .seconds(150_000), heardAgo: .seconds(100_000), away: away)
        XCTAssertEqual(during.status, .away, "neither overdue nor silent while away")
        XCTAssertNil(during.deadline)
        let after = judge(after: .seconds(200_060), away: away)
        XCTAssertEqual(after.status, .checkedIn)
        XCTAssertEqual(after.deadline, checkIn + .seconds(200_000 + 86_400), "the interval counts from the end of the away period")
        let openStart = AwaySpan(from: nil, until: checkIn + .seconds(200_000))
        XCTAssertEqual(judge(after: .seconds(60), away: openStart).status, .away, "away with only an end is away until it")
    }
}
