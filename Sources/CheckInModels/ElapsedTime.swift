/// How much time has passed since an earlier reading, as far as the device can tell.
///
/// The rule (docs/time.md): within one boot the monotonic clock measures it exactly. Across a
/// reboot only the wall clock links two readings, and a Raspberry Pi has no real-time clock: it may
/// boot at 1970 or at the last time fake-hwclock saved. So across a reboot the wall-clock
/// difference counts only when both readings were taken with a synchronised wall clock; otherwise
/// the device knows just a lower bound: the reading came before this boot began, so at least this
/// boot's uptime has passed.
public enum ElapsedTime: Hashable, Sendable {
    /// Measured: on the monotonic clock within a boot, or by two synchronised wall-clock readings.
    case exactly(Duration)
    /// Not measurable yet (a reboot with an untrusted wall clock on either side): at least this much.
    case atLeast(Duration)

    /// What has certainly passed: the exact value, or the lower bound.
    public var lowerBound: Duration {
        switch self {
        case let .exactly(duration), let .atLeast(duration): duration
        }
    }

    public var isKnown: Bool {
        if case .exactly = self { true } else { false }
    }
}

extension DeviceInstant {
    /// Time elapsed from `earlier` to this reading, exactly when the clocks allow it (see `ElapsedTime`).
    public func elapsedTime(since earlier: DeviceInstant) -> ElapsedTime {
        if earlier.bootID == bootID {
            return .exactly(uptime - earlier.uptime)
        }
        // `earlier` was taken on an earlier boot, so at least this boot's uptime has passed since.
        guard wallClockSynchronized, earlier.wallClockSynchronized else { return .atLeast(uptime) }
        // Both walls trusted; should NTP disagree with the uptime, keep what is certainly true.
        return .exactly(max(wall - earlier.wall, uptime))
    }
}
