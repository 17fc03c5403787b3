public import CheckInModels
public import Clocks
import ConcurrencyExtras
public import DeviceClock
public import XCTest

/// The base of every reducer test: one serial executor, so effects and the test clock interleave
/// deterministically (an unserialised test clock fails one run in twenty), and a test clock that
/// drives both "now" and sleeping.
@MainActor
open class ReducerTestCase: XCTestCase {
    override open func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    /// 2026-11-22 08:00:00 UTC, 1000 s after boot "boot-a", wall clock synchronised.
    public static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000),
        bootID: "boot-a", wallClockSynchronized: true)

    /// Drives `clock` (fresh for each test that calls `makeClock`).
    public var testClock = TestClock<Duration>()

    /// A device clock on a fresh test clock, starting at `start`.
    public func makeClock(startingAt start: DeviceInstant = ReducerTestCase.start) -> DeviceClock {
        testClock = TestClock()
        return .driven(by: testClock, startingAt: start)
    }
}
