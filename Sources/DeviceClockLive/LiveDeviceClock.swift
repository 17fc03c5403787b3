import CheckInModels
public import DeviceClock
import CLinuxSupport
import Glibc

extension DeviceClock {
    /// The real clocks: CLOCK_REALTIME for the wall, CLOCK_BOOTTIME for monotonic time and sleeping
    /// (it never jumps and keeps counting while suspended), the kernel's boot id, and whether the
    /// wall clock is synchronised. `sleep` replaces `Task.sleep` on the continuous clock (an
    /// executor may offer a cheaper one; it must sleep on CLOCK_BOOTTIME too).
    public static func live(
        synchronization: WallClockSynchronization = .system,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) -> DeviceClock {
        let bootID = currentBootID()
        return DeviceClock(
            now: {
                DeviceInstant(
                    wall: WallTime(microsecondsSinceEpoch: readClock(CLOCK_REALTIME).wholeMicroseconds),
                    uptime: readClock(CLOCK_BOOTTIME),
                    bootID: bootID,
                    wallClockSynchronized: synchronization.isSynchronized()
                )
            },
            sleep: sleep ?? { duration in try await Task.sleep(for: duration, clock: .continuous) },
            uptime: { readClock(CLOCK_BOOTTIME) }
        )
    }
}

/// How the device decides whether the wall clock can be trusted.
public struct WallClockSynchronization: Sendable {
    public var isSynchronized: @Sendable () -> Bool

    public init(isSynchronized: @escaping @Sendable () -> Bool) {
        self.isSynchronized = isSynchronized
    }

    /// systemd-timesyncd's flag file, or else the kernel's NTP status (what `timedatectl` reports as
    /// "System clock synchronized"): unsynchronised until an NTP client has disciplined the clock.
    public static let system = WallClockSynchronization {
        if access("/run/systemd/timesync/synchronized", F_OK) == 0 { return true }
        return clinux_kernel_clock_synchronized() == 1
    }

    public static let always = WallClockSynchronization { true }
    public static let never = WallClockSynchronization { false }
}

/// Monotonic time now (CLOCK_BOOTTIME), e.g. for stamping raw GPIO edges.
public func monotonicNow() -> Duration {
    readClock(CLOCK_BOOTTIME)
}

func readClock(_ id: clockid_t) -> Duration {
    var spec = timespec()
    // clock_gettime cannot fail for these clock ids on Linux ≥ 2.6.39.
    clock_gettime(id, &spec)
    return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
}

/// The kernel's random id for this boot; check-ins with a different one came from an earlier boot.
func currentBootID() -> String {
    guard let file = fopen("/proc/sys/kernel/random/boot_id", "r") else { return "unknown-boot" }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return "unknown-boot" }
    let text = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return text.trimmingCharacters(in: ["\n", " "])
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
