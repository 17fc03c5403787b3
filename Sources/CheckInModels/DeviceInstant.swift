/// One reading of every clock the device has, taken together.
///
/// `uptime` is monotonic (CLOCK_BOOTTIME: it never jumps and keeps counting across suspend) and is
/// only comparable with readings from the same `bootID`. `wall` is the wall clock, which is only
/// trustworthy when `wallClockSynchronized` is true.
public struct DeviceInstant: Hashable, Sendable {
    public var wall: WallTime
    public var uptime: Duration
    public var bootID: String
    public var wallClockSynchronized: Bool

    public init(wall: WallTime, uptime: Duration, bootID: String, wallClockSynchronized: Bool) {
        self.wall = wall
        self.uptime = uptime
        self.bootID = bootID
        self.wallClockSynchronized = wallClockSynchronized
    }

    /// Time that has certainly elapsed from `earlier` to this reading: exact within one boot (on the
    /// monotonic clock, so wall-clock jumps cannot make a countdown early or late) and across a
    /// reboot with synchronised wall clocks; otherwise a lower bound. See `elapsedTime(since:)`.
    public func elapsed(since earlier: DeviceInstant) -> Duration {
        elapsedTime(since: earlier).lowerBound
    }

    /// This instant moved forward by `duration` on both clocks (used by tests and projections).
    public func advanced(by duration: Duration) -> DeviceInstant {
        DeviceInstant(wall: wall + duration, uptime: uptime + duration, bootID: bootID,
                      wallClockSynchronized: wallClockSynchronized)
    }
}
