public import CheckInModels

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
}
