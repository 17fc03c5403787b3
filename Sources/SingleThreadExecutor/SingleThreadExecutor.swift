@_spi(ExperimentalCustomExecutors) @_spi(ExperimentalScheduling) public import _Concurrency
import CEventLoopSupport
import Glibc
public import LinuxIO
import Synchronization

/// Runs every job it is given on one thread — the one that calls `run()` — and serves delayed jobs
/// (`Task.sleep`) itself, sleeping in `ppoll` on an eventfd until the earliest deadline.
///
/// Why: on Linux the runtime's default executors are built on Dispatch, and once a global-queue
/// worker thread exists libdispatch wakes the process once a second, forever, to monitor its
/// thread pool. A device that should sleep for hours between LED changes must not do that. With
/// this executor installed as both the main and the default executor (see
/// `SingleThreadExecutorFactory`), an idle process sleeps until its next deadline or until another
/// thread hands it work (enqueueing from any thread is safe and wakes the loop through the eventfd).
///
/// Everything runs on one thread, so blocking calls inside async code stall every task: keep
/// blocking waits on dedicated threads (as the control socket and the terminal view do).
/// Jobs run in the order they were enqueued; priorities are not used.
///
/// SPI like the runtime protocols it implements: import it with
/// `@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor`.
@_spi(ExperimentalCustomExecutors)
public final class SingleThreadExecutor: MainExecutor, TaskExecutor, SchedulingExecutor, Sendable {
    /// What waits for a deadline: a job the runtime scheduled (`Task.sleep`, whose timer stays
    /// queued until its deadline even when the sleep is cancelled), or a sleep of this executor's
    /// own (`sleep(for:)`), which leaves the queue as soon as it is cancelled.
    ///
    /// Plain data (an unowned job, an unsafe continuation: no reference counts), so the timer heap
    /// moves entries as bytes instead of through copy and destroy witnesses. Each sleeper is
    /// resumed exactly once by whoever takes it out of the queue under the lock (the loop at its
    /// deadline, or `cancelSleeper`), which is what a checked continuation would verify.
    /// A struct of optionals, not a payload enum: in the enum form LeakSanitizer did not read the
    /// queued continuation as a pointer (the case shares its word) and reported the task of every
    /// sleep still queued when the process exits as leaked. Made only by the two functions below,
    /// so exactly one of `job` and `sleeper` is set.
    private struct Timed {
        let job: UnownedJob?
        let sleeperID: UInt64
        let sleeper: UnsafeContinuation<Void, any Error>?

        static func job(_ job: UnownedJob) -> Timed { Timed(job: job, sleeperID: 0, sleeper: nil) }
        static func sleeper(id: UInt64, _ continuation: UnsafeContinuation<Void, any Error>) -> Timed {
            Timed(job: nil, sleeperID: id, sleeper: continuation)
        }

        func isSleeper(_ wanted: UInt64) -> Bool { sleeper != nil && sleeperID == wanted }
    }

    private struct LoopState {
        var ready: [UnownedJob] = []
        var timers = TimerQueue<Timed>()
        var nextSleeperID: UInt64 = 0
        /// True while the loop is (about to be) asleep in ppoll: only then must enqueuers signal.
        var isWaiting = false
        var stopRequested = false
    }

    private let wakeup: WakeupEvent
    private let state = Mutex(LoopState())
    /// pthread_t of the thread inside `run()`, 0 before it started.
    private let loopThread = Atomic<UInt>(0)

    public init() throws(SystemError) {
        wakeup = try WakeupEvent()
    }

    // MARK: Enqueueing (any thread)

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let mustWake = state.withLock { state in
            state.ready.append(job)
            return state.isWaiting
        }
        if mustWake { wakeup.signal() }
    }

    public func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, after delay: C.Duration, tolerance: C.Duration? = nil, clock: C
    ) {
        guard let delay = delay as? Duration else {
            // The runtime only schedules on the standard clocks (continuous, suspending); clocks
            // with their own sleep (test clocks) never get here.
            preconditionFailure("SingleThreadExecutor schedules only on clocks measured in Duration, not \(C.self)")
        }
        schedule(.job(UnownedJob(job)), after: delay)
    }

    /// Queues `timed` for its deadline and wakes the loop if that deadline is the new earliest.
    private func schedule(_ timed: Timed, after delay: Duration) {
        let deadline = Self.now() + max(0, Self.nanoseconds(delay))
        let mustWake = state.withLock { state in
            // Only a new earliest deadline changes how long a sleeping loop must wait.
            let isNewEarliest = state.timers.earliestDeadline.map { deadline < $0 } ?? true
            state.timers.insert(timed, deadline: deadline)
            return state.isWaiting && isNewEarliest
        }
        if mustWake { wakeup.signal() }
    }

    /// Like `Task.sleep(for:)` on CLOCK_BOOTTIME, but a cancelled sleep is removed from the timer
    /// queue at once. The runtime's `Task.sleep` queues a whole sleep task (about 600 bytes) that
    /// stays until its deadline even after cancellation: the check-in countdown cancels a sleep
    /// of up to a day at every check-in, so memory grew with every check-in (BENCHMARKS.md).
    /// Only valid while this executor's loop runs (`SingleThreadExecutorFactory.sleep` checks).
    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextSleeperID &+= 1
            return state.nextSleeperID
        }
        try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Void, any Error>) in
                // Cancelled before the timer is queued: the handler below found nothing to remove
                // (or has yet to run and will not find it), so answer here.
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else {
                    schedule(.sleeper(id: id, continuation), after: duration)
                    // A cancellation between the check and the insertion must still end the sleep.
                    if Task.isCancelled { cancelSleeper(id) }
                }
            }
        } onCancel: {
            cancelSleeper(id)
        }
    }

    private func cancelSleeper(_ id: UInt64) {
        let removed = state.withLock { $0.timers.remove(where: { $0.isSleeper(id) }) }
        removed?.sleeper?.resume(throwing: CancellationError())
    }

    public func enqueue<C: Clock>(
        _ job: consuming ExecutorJob, at instant: C.Instant, tolerance: C.Duration? = nil, clock: C
    ) {
        enqueue(job, after: clock.now.duration(to: instant), tolerance: tolerance, clock: clock)
    }

    // MARK: The loop

    /// How many jobs wait for a deadline (for tests and diagnostics).
    public var scheduledCount: Int { state.withLock { $0.timers.count } }

    public func run() throws {
        try runUntil { false }
    }

    /// Runs jobs on the calling thread until `condition` holds (checked between batches of jobs)
    /// or `stop()` is called. With nothing to do it sleeps: until the earliest deadline, or forever.
    public func runUntil(_ condition: () -> Bool) throws {
        loopThread.store(UInt(pthread_self()), ordering: .releasing)
        var batch: [UnownedJob] = []
        var wokenSleepers: [UnsafeContinuation<Void, any Error>] = []
        while !condition() {
            enum Next { case stop, resumeSleepers, runBatch, sleep(nanoseconds: Int64?) }
            let next: Next = state.withLock { state in
                if state.stopRequested {
                    state.stopRequested = false
                    return .stop
                }
                let now = Self.now()
                while let due = state.timers.popDue(now: now) {
                    if let job = due.job { state.ready.append(job) }
                    if let continuation = due.sleeper { wokenSleepers.append(continuation) }
                }
                if !wokenSleepers.isEmpty {
                    return .resumeSleepers
                }
                if !state.ready.isEmpty {
                    swap(&state.ready, &batch)
                    return .runBatch
                }
                state.isWaiting = true
                return .sleep(nanoseconds: state.timers.earliestDeadline.map { $0 - now })
            }
            switch next {
            case .stop:
                return
            case .resumeSleepers:
                // Outside the lock: resuming enqueues the sleeping task, which takes the lock.
                for continuation in wokenSleepers { continuation.resume() }
                wokenSleepers.removeAll(keepingCapacity: true)
            case .runBatch:
                let executor = asUnownedSerialExecutor()
                for job in batch { job.runSynchronously(on: executor) }
                batch.removeAll(keepingCapacity: true)
            case let .sleep(nanoseconds):
                let signalled = waitForWakeup(nanoseconds: nanoseconds)
                state.withLock { $0.isWaiting = false }
                // After clearing isWaiting nobody signals again, so this leaves the eventfd clear.
                if signalled { wakeup.drain() }
            }
        }
    }

    /// Makes `run()` return after the jobs it is running now. Safe from any thread.
    public func stop() {
        state.withLock { $0.stopRequested = true }
        wakeup.signal()
    }

    /// True once a thread has entered `run()` (the loop may be asleep, but it serves its timers).
    public var isRunning: Bool { loopThread.load(ordering: .acquiring) != 0 }

    /// True when called on the thread running the loop.
    public var isOnLoopThread: Bool {
        let loop = loopThread.load(ordering: .acquiring)
        return loop != 0 && pthread_equal(pthread_t(loop), pthread_self()) != 0
    }

    // MARK: Isolation

    public var isMainExecutor: Bool { true }

    public func checkIsolated() {
        precondition(isOnLoopThread, "expected to run on the SingleThreadExecutor loop thread")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isOnLoopThread
    }

    // MARK: Time

    /// Sleeps in ppoll until the eventfd is signalled or `nanoseconds` pass (nil: no limit).
    /// Returns whether the eventfd was signalled.
    private func waitForWakeup(nanoseconds: Int64?) -> Bool {
        var descriptor = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
        let result: Int32
        if let nanoseconds {
            let wait = max(0, nanoseconds)
            var timeout = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
            result = ppoll(&descriptor, 1, &timeout, nil)
        } else {
            result = ppoll(&descriptor, 1, nil, nil)
        }
        if result < 0 && errno != EINTR {
            // EINVAL/ENOMEM: cannot wait properly; pause briefly rather than spin, then re-check.
            usleep(1000)
        }
        return result > 0 && descriptor.revents != 0
    }

    /// Now on CLOCK_BOOTTIME, in nanoseconds: the clock Swift's ContinuousClock reads on Linux.
    /// Suspending-clock sleeps use it too; the two differ only across a system suspend, which
    /// this device never does.
    static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_BOOTTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return seconds < 0 ? Int64.min / 2 : Int64.max / 2 }
        return whole + attoseconds / 1_000_000_000
    }
}

/// Installs `SingleThreadExecutor` as the process's main and default executor:
/// `typealias DefaultExecutorFactory = SingleThreadExecutorFactory` on the `@main` type (the
/// executable target needs `-Xfrontend -disable-availability-checking`, or the typealias is
/// silently ignored in Swift 6.3).
@_spi(ExperimentalCustomExecutors)
public enum SingleThreadExecutorFactory: ExecutorFactory {
    /// The one loop; the runtime runs it on the main thread after starting `main`.
    public static let shared: SingleThreadExecutor = {
        do {
            return try SingleThreadExecutor()
        } catch {
            // Before any Swift concurrency runs there is no other way to fail: say why and exit
            // like any other OS-resource failure (EX_OSERR).
            var line = "cannot start the executor: \(error)\n"
            line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
            exit(71)
        }
    }()

    /// `LIFESIGNAL_EXECUTOR=dispatch` in the environment selects the runtime's own (Dispatch-based)
    /// executors instead: to measure the difference (scripts/bench), and as a way back should this
    /// experimental one ever misbehave in the field.
    public static let usesDispatch: Bool = {
        guard let value = getenv("LIFESIGNAL_EXECUTOR") else { return false }
        return String(cString: value) == "dispatch"
    }()

    /// The sleep to give the device's clock: the loop's own cancellable sleep when this factory's
    /// executor runs, else the runtime's `Task.sleep` (Dispatch executors, or a process such as a
    /// test that never started the loop).
    public static func sleep(for duration: Duration) async throws {
        if !usesDispatch, shared.isRunning {
            try await shared.sleep(for: duration)
        } else {
            try await Task.sleep(for: duration, clock: .continuous)
        }
    }

    public static var mainExecutor: any MainExecutor {
        usesDispatch ? PlatformExecutorFactory.mainExecutor : shared
    }

    public static var defaultExecutor: any TaskExecutor {
        usesDispatch ? PlatformExecutorFactory.defaultExecutor : shared
    }
}
