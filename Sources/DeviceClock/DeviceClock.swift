public import CheckInModels
import ComposableCore

/// Everything the device knows about time, as an injectable value.
///
/// `now` reads all clocks at once; `sleep` waits on the monotonic clock. The two must agree: in
/// tests both are driven by one test clock, live both are CLOCK_BOOTTIME.
public struct DeviceClock: Sendable {
    public var now: @Sendable () -> DeviceInstant
    public var sleep: @Sendable (_ duration: Duration) async throws -> Void
    /// Monotonic time alone (`now().uptime`), for hot paths such as LED patterns and debouncing:
    /// live it is one vDSO clock read, where `now()` also asks whether the wall clock is
    /// synchronised (two system calls).
    public var uptime: @Sendable () -> Duration

    public init(
        now: @escaping @Sendable () -> DeviceInstant,
        sleep: @escaping @Sendable (_ duration: Duration) async throws -> Void,
        uptime: (@Sendable () -> Duration)? = nil
    ) {
        self.now = now
        self.sleep = sleep
        self.uptime = uptime ?? { now().uptime }
    }

    /// A clock driven by any `Clock` with `Duration` steps (a test clock, say), starting at `start`.
    public static func driven<C: Clock>(by clock: C, startingAt start: DeviceInstant) -> DeviceClock
    where C.Duration == Duration {
        let origin = clock.now
        return DeviceClock(
            now: { start.advanced(by: origin.duration(to: clock.now)) },
            sleep: { duration in try await clock.sleep(for: duration) }
        )
    }

    /// Every call is reported as unexpected: tests override what they use (usually `driven(by:)`).
    public static let failing = DeviceClock(
        now: {
            UnexpectedCall.report("DeviceClock.now")
            return DeviceInstant(wall: WallTime(microsecondsSinceEpoch: 0), uptime: .zero, bootID: "unexpected",
                                 wallClockSynchronized: false)
        },
        sleep: { _ in
            UnexpectedCall.report("DeviceClock.sleep")
            throw UnimplementedError("DeviceClock.sleep")
        },
        uptime: {
            UnexpectedCall.report("DeviceClock.uptime")
            return .zero
        }
    )
}

/// The wall clock being set, stepped or synchronised under the device (live: a timerfd that the
/// kernel cancels when the clock is set), as a stream the device feature listens to.
public struct WallClockChangesClient: Sendable {
    /// Starts watching; the stream yields once per change and finishes when iteration stops.
    /// Nil when the changes cannot be watched (they are then noticed at the next event).
    public var changes: @Sendable () -> AsyncStream<Void>?

    public init(changes: @escaping @Sendable () -> AsyncStream<Void>?) {
        self.changes = changes
    }

    public static let failing = WallClockChangesClient(changes: {
        UnexpectedCall.report("WallClockChangesClient.changes")
        return nil
    })
}
