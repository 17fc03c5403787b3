import CLinuxSupport
import Glibc

/// How the device decides whether the wall clock can be trusted.
public struct WallClockSynchronization: Sendable {
    public var isSynchronized: @Sendable () -> Bool
    /// A directory whose entries changing may mean the answer changed (an NTP client's flag file
    /// appearing): `WallClockMonitor` watches it instead of waiting for its next look.
    public var flagDirectory: String?

    public init(flagDirectory: String? = nil, isSynchronized: @escaping @Sendable () -> Bool) {
        self.flagDirectory = flagDirectory
        self.isSynchronized = isSynchronized
    }

    /// systemd-timesyncd's flag file, or else the kernel's NTP status (what `timedatectl` reports as
    /// "System clock synchronized"): unsynchronised until an NTP client has disciplined the clock.
    public static let system = WallClockSynchronization(flagDirectory: "/run/systemd/timesync") {
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 { return true }
        return clinux_kernel_clock_synchronized() == 1
    }

    public static let always = WallClockSynchronization { true }
    public static let never = WallClockSynchronization { false }
}
