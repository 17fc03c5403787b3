import CLinuxSupport
import Glibc

/// Tells the device when the wall clock changes under it: set by an operator, stepped by NTP, or
/// synchronised for the first time after a boot without a real-time clock.
///
/// Steps are seen without polling: a CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET
/// becomes readable (read fails with ECANCELED) whenever the clock is set. A first synchronisation
/// that only slews the clock sets nothing, so while the clock is unsynchronised the monitor also
/// looks at the synchronisation state once a minute; once it is synchronised it sleeps in poll
/// with no timeout at all.
public final class WallClockMonitor: Sendable {
    private let timer: Int32
    private let loop: StoppableThread

    /// How often the synchronisation state is looked at while the clock is not synchronised.
    public static let unsynchronizedCheck = Duration.seconds(60)

    /// Starts watching; `onChange` runs on the monitor's thread after every set, step or
    /// synchronisation. `unsynchronizedCheck` is how often the synchronisation state is looked at
    /// while the clock is not synchronised.
    public static func start(
        synchronization: WallClockSynchronization = .system,
        unsynchronizedCheck: Duration = WallClockMonitor.unsynchronizedCheck,
        onChange: @escaping @Sendable () -> Void
    ) throws(SystemError) -> WallClockMonitor {
        let timer = timerfd_create(CLOCK_REALTIME, Int32(TFD_CLOEXEC))
        guard timer >= 0 else { throw .current("timerfd_create", "CLOCK_REALTIME") }
        let monitor: WallClockMonitor
        do {
            monitor = WallClockMonitor(timer: timer, loop: try StoppableThread())
        } catch {
            close(timer)
            throw error
        }
        try monitor.arm()
        try monitor.loop.start(name: "wall-clock") {
            monitor.run(synchronization: synchronization, check: unsynchronizedCheck, onChange: onChange)
        }
        return monitor
    }

    private init(timer: Int32, loop: StoppableThread) {
        self.timer = timer
        self.loop = loop
    }

    /// Stops the thread and waits for it. Idempotent.
    public func stop() {
        loop.stop()
    }

    deinit {
        close(timer)
    }

    /// An absolute timer far in the future: it never fires, it only gets cancelled by clock sets.
    private func arm() throws(SystemError) {
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(Int32.max) * 4  // about the year 2242
        let flags = Int32(TFD_TIMER_ABSTIME) | Int32(TFD_TIMER_CANCEL_ON_SET)
        guard timerfd_settime(timer, flags, &spec, nil) == 0 else {
            throw .current("timerfd_settime", "CLOCK_REALTIME (cancel on set)")
        }
    }

    private func run(synchronization: WallClockSynchronization, check: Duration, onChange: @Sendable () -> Void) {
        var wasSynchronized = synchronization.isSynchronized()
        var descriptors = [pollfd(fd: timer, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: loop.wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        while !loop.isStopping {
            let milliseconds = check.components.seconds * 1000 + check.components.attoseconds / 1_000_000_000_000_000
            let timeout = wasSynchronized ? -1 : Int32(clamping: max(milliseconds, 1))
            let ready = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if ready < 0 {
                if errno == EINTR { continue }
                return  // cannot happen with valid descriptors; the countdown does not depend on it
            }
            if loop.isStopping { return }
            var changed = false
            if descriptors[0].revents != 0 {
                var expirations: UInt64 = 0
                // ECANCELED: the clock was set. Re-arm, or the descriptor stays readable forever.
                if read(timer, &expirations, MemoryLayout<UInt64>.size) < 0, errno == ECANCELED {
                    changed = true
                }
                if (try? arm()) == nil { return }
            }
            let synchronized = synchronization.isSynchronized()
            if synchronized != wasSynchronized {
                changed = true
                wasSynchronized = synchronized
            }
            if changed { onChange() }
        }
    }
}
