import Backoff
import CLinuxSupport
import Glibc

/// Tells the device when the wall clock changes under it: set by an operator, stepped by NTP, or
/// synchronised for the first time after a boot without a real-time clock.
///
/// Steps are seen without polling: a CLOCK_REALTIME timerfd armed with TFD_TIMER_CANCEL_ON_SET
/// becomes readable (read fails with ECANCELED) whenever the clock is set. A first synchronisation
/// that only slews the clock sets nothing. systemd-timesyncd (Debian's and Raspberry Pi OS's NTP
/// client) says it with a flag file, watched with inotify, so that is seen at once too. Only the
/// kernel's NTP state (another NTP client) can be learnt by looking alone: while the clock is
/// unsynchronised the monitor looks after 1 min, then ever less often (doubling up to about an
/// hour), so a device that never synchronises (no network, no NTP client) does not wake every
/// minute for years. Late news costs little: the countdown runs on monotonic time, and check-ins
/// stamped before synchronisation are re-anchored at the next event that finds the clock trusted.
/// Once synchronised the monitor sleeps in poll with no timeout at all.
public final class WallClockMonitor: Sendable {
    private let timer: Int32
    private let loop: StoppableThread

    /// The first look at the synchronisation state while the clock is not synchronised; the
    /// interval then doubles with every look that found no change, up to `longestUnsynchronizedCheck`.
    public static let unsynchronizedCheck = Duration.seconds(60)
    public static let longestUnsynchronizedCheck = Duration.seconds(64 * 60)

    /// How long the monitor sleeps while unsynchronised after `quietChecks` looks that found no change.
    public static func checkInterval(afterQuietChecks quietChecks: Int, first: Duration = unsynchronizedCheck,
                                     longest: Duration = longestUnsynchronizedCheck) -> Duration {
        Backoff(initial: first, cap: longest, jitter: .none).bound(afterFailures: quietChecks + 1)
    }

    /// Starts watching; `onChange` runs on the monitor's thread after every set, step or
    /// synchronisation. `unsynchronizedCheck` is the first interval at which the synchronisation
    /// state is looked at while the clock is not synchronised.
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
        // The watch and the first reading are in place before this returns, so a change made after
        // it is never missed (the thread may start a little later).
        let flagWatch = FlagDirectoryWatch(synchronization.flagDirectory)
        let synchronized = synchronization.isSynchronized()
        do {
            try monitor.loop.start(name: "wall-clock") {
                monitor.run(synchronization: synchronization, initially: synchronized, flagWatch: flagWatch,
                            check: unsynchronizedCheck, onChange: onChange)
            }
        } catch {
            flagWatch?.close()
            throw error
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

    private func run(synchronization: WallClockSynchronization, initially synchronized: Bool, flagWatch: FlagDirectoryWatch?,
                     check: Duration, onChange: @Sendable () -> Void) {
        var wasSynchronized = synchronized
        defer { flagWatch?.close() }
        var descriptors = [pollfd(fd: timer, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: loop.wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        if let flagWatch { descriptors.append(pollfd(fd: flagWatch.descriptor, events: Int16(POLLIN), revents: 0)) }
        var quietChecks = 0
        while !loop.isStopping {
            let interval = Self.checkInterval(afterQuietChecks: quietChecks, first: check, longest: max(check, Self.longestUnsynchronizedCheck))
            let timeout = wasSynchronized ? -1 : Int32(clamping: max(interval.wholeMilliseconds, 1))
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
            if let flagWatch, descriptors[2].revents != 0 { flagWatch.drain() }
            let synchronized = synchronization.isSynchronized()
            if synchronized != wasSynchronized {
                changed = true
                wasSynchronized = synchronized
            }
            if changed {
                quietChecks = 0
                onChange()
            } else if ready == 0 {
                quietChecks += 1
            }
        }
    }
}

/// inotify on the directory where an NTP client drops its "synchronised" flag file, so its
/// appearance wakes the monitor at once. Nothing is watched when the directory does not exist (no
/// such client on this machine): then the kernel's state is looked at on the backoff alone.
private struct FlagDirectoryWatch: Sendable {
    let descriptor: Int32

    init?(_ directory: String?) {
        guard let directory else { return nil }
        let inotify = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard inotify >= 0 else { return nil }
        let mask = UInt32(IN_CREATE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_ATTRIB | IN_CLOSE_WRITE)
        guard inotify_add_watch(inotify, directory, mask) >= 0 else {
            Glibc.close(inotify)
            return nil
        }
        descriptor = inotify
    }

    /// Reads every pending event: only "something changed there" matters, not what.
    func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while read(descriptor, &buffer, buffer.count) > 0 {}
    }

    func close() { Glibc.close(descriptor) }
}
