import CheckInModels
import DeviceClock
import DeviceClockLive
import Glibc
import LinuxIO
import Synchronization
import XCTest

/// The live clock on the real kernel: the boot id the store tells boots apart by, CLOCK_BOOTTIME
/// for monotonic time and sleeping, CLOCK_REALTIME for the wall, and the synchronisation flag.
final class LiveDeviceClockTests: XCTestCase {
    /// The kernel's boot id as a file read independently of the clock.
    private func kernelBootID() throws -> String {
        guard let file = fopen("/proc/sys/kernel/random/boot_id", "r") else {
            throw XCTSkip("no /proc/sys/kernel/random/boot_id here")
        }
        defer { fclose(file) }
        var buffer = [CChar](repeating: 0, count: 64)
        guard fgets(&buffer, Int32(buffer.count), file) != nil else { throw XCTSkip("boot_id is empty") }
        return String(decoding: buffer.prefix(while: { $0 != 0 && $0 != 10 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private func bootTime() -> Duration {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return .seconds(Int64(spec.tv_sec)) + .nanoseconds(Int64(spec.tv_nsec))
    }

    func testTheBootIDIsTheKernelsWithoutItsNewline() throws {
        let expected = try kernelBootID()
        let clock = DeviceClock.live(synchronization: .never)
        let now = clock.now()
        XCTAssertEqual(now.bootID, expected)
        XCTAssertEqual(now.bootID.count, 36, "a UUID: \(now.bootID)")
        XCTAssertFalse(now.bootID.contains("\n"))
        XCTAssertEqual(clock.now().bootID, now.bootID, "one boot id for the clock's life")
    }

    func testUptimeIsBoottimeAndNeverGoesBackwards() {
        let clock = DeviceClock.live(synchronization: .never)
        let before = bootTime()
        var previous = clock.uptime()
        XCTAssertGreaterThanOrEqual(previous, before)
        for _ in 0..<10_000 {
            let next = clock.uptime()
            XCTAssertGreaterThanOrEqual(next, previous)
            previous = next
        }
        let instant = clock.now()
        XCTAssertGreaterThanOrEqual(instant.uptime, previous, "now() reads the same monotonic clock as uptime()")
        XCTAssertLessThanOrEqual(instant.uptime, bootTime())
        XCTAssertGreaterThanOrEqual(monotonicNow(), instant.uptime, "the free function reads the same clock")
    }

    /// Compared with `clock_gettime(CLOCK_REALTIME)` itself, not `time()`: glibc answers `time()`
    /// from the coarse clock, which lags by up to a tick, so just after a second boundary it still
    /// says the second before (a failure seen under ThreadSanitizer's slower runs).
    func testTheWallIsTheRealtimeClock() {
        func realtimeMicroseconds() -> Int64 {
            var spec = timespec()
            clock_gettime(CLOCK_REALTIME, &spec)
            return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
        }
        let clock = DeviceClock.live(synchronization: .never)
        let before = realtimeMicroseconds()
        let wall = clock.now().wall.microsecondsSinceEpoch
        let after = realtimeMicroseconds()
        XCTAssertGreaterThanOrEqual(wall, before)
        XCTAssertLessThanOrEqual(wall, after)
    }

    func testTheSynchronisationFlagIsAskedAtEveryReading() {
        let flag = FlagBox()
        let clock = DeviceClock.live(synchronization: WallClockSynchronization { flag.value })
        XCTAssertFalse(clock.now().wallClockSynchronized)
        flag.value = true
        XCTAssertTrue(clock.now().wallClockSynchronized, "a clock that synchronised later is seen as such")
        XCTAssertTrue(DeviceClock.live(synchronization: .always).now().wallClockSynchronized)
    }

    /// Sleeping waits at least as long as asked on CLOCK_BOOTTIME (a lower bound, never a timing target).
    func testSleepWaitsOnTheMonotonicClock() async throws {
        let clock = DeviceClock.live(synchronization: .never)
        let start = clock.uptime()
        try await clock.sleep(.milliseconds(30))
        XCTAssertGreaterThanOrEqual(clock.uptime() - start, .milliseconds(30))
    }

    func testACancelledSleepThrowsInsteadOfWaitingItOut() async {
        let clock = DeviceClock.live(synchronization: .never)
        let sleeper = Task { try await clock.sleep(.seconds(3600)) }
        sleeper.cancel()
        do {
            try await sleeper.value
            XCTFail("an hour's sleep returned normally after its task was cancelled")
        } catch {
            XCTAssertTrue(error is CancellationError, "\(error)")
        }
    }

    func testAGivenSleepReplacesTheDefaultOne() async throws {
        let asked = FlagBox()
        let clock = DeviceClock.live(synchronization: .never, sleep: { duration in
            XCTAssertEqual(duration, .seconds(3600))
            asked.value = true
        })
        try await clock.sleep(.seconds(3600))  // returns at once: the given sleep ran instead
        XCTAssertTrue(asked.value)
    }
}

/// A flag shared with a `@Sendable` closure.
private final class FlagBox: Sendable {
    private let stored = Atomic<Bool>(false)
    var value: Bool {
        get { stored.load(ordering: .sequentiallyConsistent) }
        set { stored.store(newValue, ordering: .sequentiallyConsistent) }
    }
}
