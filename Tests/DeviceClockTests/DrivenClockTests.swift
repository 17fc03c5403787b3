import CheckInModels
import Clocks
import ComposableCore
import DeviceClock
import Synchronization
import TestSupport
import XCTest

/// The clock tests drive: "now" and sleeping follow one test clock, so they always agree; and the
/// failing value reports every reading a test did not expect.
final class DrivenClockTests: XCTestCase {
    static let start = DeviceInstant(wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000),
                                     bootID: "boot-a", wallClockSynchronized: true)

    func testNowAndUptimeFollowTheTestClockFromTheStart() async {
        let testClock = TestClock<Duration>()
        let clock = DeviceClock.driven(by: testClock, startingAt: Self.start)
        XCTAssertEqual(clock.now(), Self.start)
        await testClock.advance(by: .seconds(90))
        XCTAssertEqual(clock.now(), Self.start.advanced(by: .seconds(90)))
        XCTAssertEqual(clock.now().bootID, "boot-a")
        XCTAssertEqual(clock.uptime(), .seconds(1090), "uptime is now().uptime unless given")
    }

    func testASleeperWakesWhenTheTestClockReachesItsDeadlineNotBefore() async throws {
        let testClock = TestClock<Duration>()
        let clock = DeviceClock.driven(by: testClock, startingAt: Self.start)
        let woke = Atomic<Bool>(false)
        let sleeper = Task {
            try await clock.sleep(.seconds(60))
            woke.store(true, ordering: .sequentiallyConsistent)
        }
        await Task.megaYield()
        await testClock.advance(by: .seconds(59))
        await Task.megaYield()
        XCTAssertFalse(woke.load(ordering: .sequentiallyConsistent))
        await testClock.advance(by: .seconds(1))
        try await sleeper.value
        XCTAssertTrue(woke.load(ordering: .sequentiallyConsistent))
        XCTAssertEqual(clock.now(), Self.start.advanced(by: .seconds(60)))
    }

    func testTheFailingClockReportsEveryUseAndItsSleepThrows() async {
        let clock = DeviceClock.failing
        let messages = await unexpectedCalls {
            _ = clock.now()
            _ = clock.uptime()
            do {
                try await clock.sleep(.seconds(1))
                XCTFail("the failing clock slept")
            } catch {
                XCTAssertTrue(error is UnimplementedError, "\(error)")
            }
        }
        XCTAssertEqual(messages.count, 3, "\(messages)")
        for (message, name) in zip(messages, ["now", "uptime", "sleep"]) {
            XCTAssertTrue(message.contains("DeviceClock.\(name)"), message)
        }
    }
}
