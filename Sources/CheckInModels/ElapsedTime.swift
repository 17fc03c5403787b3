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
    /// Not measurable (a reboot with an untrusted wall clock on either side, or readings that
    /// contradict each other): at least this much.
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
    ///
    /// Readings that contradict themselves are never taken as a measurement (docs/time.md): an
    /// uptime lower than `earlier`'s on the same boot (a time namespace gives CLOCK_BOOTTIME an offset
    /// of its own) links the readings only through the wall clock, as across a reboot; and two
    /// synchronised wall clocks that say less time passed than is certain (this boot's uptime, or
    /// none at all) leave it unknown.
    public func elapsedTime(since earlier: DeviceInstant) -> ElapsedTime {
        // At least this much has certainly passed: `earlier` came before this boot began, or (uptime
        // gone backwards within a boot) nothing is certain.
        let certain: Duration
        let tolerance: Duration
        if earlier.bootID == bootID {
            guard uptime < earlier.uptime else { return .exactly(uptime - earlier.uptime) }
            certain = .zero
            tolerance = .zero
        } else {
            certain = uptime
            tolerance = Self.wallClockToleranceAcrossBoots
        }
        guard wallClockSynchronized, earlier.wallClockSynchronized else { return .atLeast(certain) }
        let onTheWall = wall - earlier.wall
        // A wall clock earlier than the reading it is compared with is wrong, whatever the tolerance.
        guard onTheWall >= .zero, onTheWall >= certain - tolerance else { return .atLeast(certain) }
        return .exactly(max(onTheWall, certain))
    }

    /// How far the wall clocks may fall short of this boot's uptime across a reboot and still count
    /// as agreeing with it. A clock set at boot from a real-time clock is behind by up to the RTC's
    /// whole second (as is the earlier boot's), so a short power cut can show a wall-clock
    /// difference a little under the uptime although nothing is wrong; calling that "unknown" would
    /// show a fault after a blip. Within the tolerance the uptime is taken (the certain part);
    /// beyond it the readings contradict each other.
    public static let wallClockToleranceAcrossBoots: Duration = .seconds(2)
}
