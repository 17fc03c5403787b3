import CheckInModels
public import DeviceClock
import Glibc
public import LinuxIO

extension DeviceClock {
    /// The real clocks: CLOCK_REALTIME for the wall, CLOCK_BOOTTIME for monotonic time and sleeping
    /// (it never jumps and keeps counting while suspended), the kernel's boot id, and whether the
    /// wall clock is synchronised. `sleep` replaces `Task.sleep` on the continuous clock (an
    /// executor may offer a cheaper one; it must sleep on CLOCK_BOOTTIME too).
    public static func live(
        synchronization: WallClockSynchronization = .system,
        sleep: (@Sendable (Duration) async throws -> Void)? = nil
    ) -> DeviceClock {
        let bootID = BootID.current.id
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

/// The kernel's random id for this boot: check-ins with a different one came from an earlier boot.
public struct BootID: Sendable {
    public var id: String
    /// Why the kernel's id could not be read, when it could not.
    public var problem: String?

    /// Read once per process. When the kernel's id cannot be read (a sandbox hiding /proc/sys), a
    /// fresh random id stands in: every start then counts as a new boot, so elapsed time across a
    /// restart comes from synchronised wall clocks or is unknown — never from comparing the
    /// monotonic clocks of two boots taken for one.
    public static let current: BootID = {
        let path = "/proc/sys/kernel/random/boot_id"
        switch readRegularFile(path, limit: 64) {
        case let .success(bytes):
            let text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: ["\n", " "])
            if !text.isEmpty { return BootID(id: text) }
            return BootID(id: "unknown-boot-\(CheckInID.random())", problem: "\(path) is empty")
        case let .failure(failure):
            return BootID(id: "unknown-boot-\(CheckInID.random())", problem: "cannot read \(path): \(failure)")
        }
    }()
}

extension String {
    func trimmingCharacters(in set: Set<Character>) -> String {
        String(drop(while: { set.contains($0) }).reversed().drop(while: { set.contains($0) }).reversed())
    }
}
