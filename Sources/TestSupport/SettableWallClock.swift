public import CheckInModels
import Synchronization

/// A wall clock that stands still until the test moves it: the reference backend's clock in tests
/// of deadlines, silence and healthchecks' grace, so no test waits for real time to pass.
public final class SettableWallClock: Sendable {
    private let time: Mutex<WallTime>

    /// 2026-11-18T11:06:40Z unless told otherwise.
    public init(_ start: WallTime = WallTime(secondsSinceEpoch: 1_795_000_000)) {
        time = Mutex(start)
    }

    public var now: WallTime { time.withLock { $0 } }

    public func advance(_ duration: Duration) {
        time.withLock { $0 = $0 + duration }
    }

    /// The clock as a dependency.
    public var read: @Sendable () -> WallTime { { self.now } }
}
