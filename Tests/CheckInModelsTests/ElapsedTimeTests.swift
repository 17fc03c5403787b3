import CheckInModels
import XCTest

/// `DeviceInstant.elapsedTime(since:)`: exact where the readings link up, "at least" where they
/// contradict each other (docs/time.md). The feature's reaction is CheckInFeatureTests' TimeTests.
final class ElapsedTimeTests: XCTestCase {
    static let hour = Duration.seconds(3600)
    static let bootA = "boot-a"
    static let start = DeviceInstant(wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000),
                                     bootID: bootA, wallClockSynchronized: true)

    /// A check-in made `ago` before `start` on `bootID`, with a synchronised wall clock.
    static func record(ago: Duration, bootID: String = bootA) -> CheckInRecord {
        CheckInRecord(id: CheckInID(high: 1, low: 1), at: DeviceInstant(wall: start.wall + (.zero - ago), uptime: start.uptime - ago,
                                                                       bootID: bootID, wallClockSynchronized: true),
                      source: .button)
    }

    func testUptimeGoingBackwardsWithTrustedWallClocksUsesTheWallClock() {
        // The wall clock is not namespaced: synchronised on both sides it still links the readings.
        var last = Self.record(ago: Self.hour * 3)
        last.at.uptime = Self.start.uptime + Self.hour * 2
        XCTAssertEqual(Self.start.elapsedTime(since: last.at), .exactly(Self.hour * 3))
        // …unless it, too, runs backwards.
        last.at.wall = Self.start.wall + .seconds(1)
        XCTAssertEqual(Self.start.elapsedTime(since: last.at), .atLeast(.zero))
    }

    func testSynchronisedWallClocksThatSayLessThanThisBootsUptimeAreUnknown() {
        // 10 s on the wall clocks, but this boot alone has run 30 s: the wall clocks disagree.
        let last = Self.record(ago: .zero, bootID: Self.bootA)
        let boot = DeviceInstant(wall: Self.start.wall + .seconds(10), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: true)
        XCTAssertEqual(boot.elapsedTime(since: last.at), .atLeast(.seconds(30)))
        // A wall clock set from a real-time clock's whole second may fall a little short of the
        // uptime after a short cut: within the tolerance the uptime is what certainly passed…
        let blip = DeviceInstant(wall: Self.start.wall + .seconds(29), uptime: .seconds(30), bootID: "boot-b",
                                 wallClockSynchronized: true)
        XCTAssertEqual(blip.elapsedTime(since: last.at), .exactly(.seconds(30)))
        // …beyond it the clocks contradict each other.
        let beyond = DeviceInstant(wall: Self.start.wall + .seconds(27), uptime: .seconds(30), bootID: "boot-b",
                                   wallClockSynchronized: true)
        XCTAssertEqual(beyond.elapsedTime(since: last.at), .atLeast(.seconds(30)))
        // A wall clock earlier than the check-in is never within it.
        let earlier = DeviceInstant(wall: Self.start.wall + .seconds(-1), uptime: .seconds(1), bootID: "boot-b",
                                    wallClockSynchronized: true)
        XCTAssertEqual(earlier.elapsedTime(since: last.at), .atLeast(.seconds(1)))
        // Consistent clocks stay exact.
        let later = DeviceInstant(wall: Self.start.wall + Self.hour, uptime: .seconds(30), bootID: "boot-b",
                                  wallClockSynchronized: true)
        XCTAssertEqual(later.elapsedTime(since: last.at), .exactly(Self.hour))
    }
}
