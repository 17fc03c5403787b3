import Glibc
import Synchronization

/// A serial executor whose jobs all run, one at a time and in order, on one dedicated pthread of
/// its own: give an actor one (`unownedExecutor`) and everything the actor does runs there, off
/// the caller's thread.
///
/// Why: the daemon's own executor runs every Swift job on the main thread's loop, which also times
/// the LED patterns and answers the control socket. Blocking work such as an SQLite commit with its
/// `fdatasync` must not sit on that loop. A call from the loop to an actor on this executor is one
/// hop here and one hop back.
///
/// Idle, the thread sleeps in `poll` on an eventfd with no timeout: no wake-ups at all (a Dispatch
/// queue would bring libdispatch's 1 Hz pool monitor back). `whenIdle` runs work on the thread
/// each time its queue has drained after a job, i.e. after the callers of that job were answered.
///
/// The thread ends by itself once the executor is gone and the jobs already queued have run; an
/// actor keeps its executor (and so its thread) alive.
public final class SerialThreadExecutor: SerialExecutor, Sendable {
    private let loop: Loop
    /// The thread's name as given (the kernel shows the first 15 bytes).
    public let name: String

    /// Starts the thread.
    public init(name: String) throws(SystemError) {
        let loop = try Loop()
        self.loop = loop
        self.name = name
        _ = try DedicatedThread.start(name: name) { loop.run() }
    }

    deinit {
        // Never joined: the last reference may well be dropped on the thread itself (an actor's
        // isolated deinit). The thread drains its queue, sees the stop and ends, detached.
        loop.stop()
    }

    // MARK: SerialExecutor

    public func enqueue(_ job: consuming ExecutorJob) {
        loop.submit(.job(UnownedJob(job), asUnownedSerialExecutor()))
    }

    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    public func checkIsolated() {
        precondition(isOnThread, "expected to run on the \(name) thread (SerialThreadExecutor)")
    }

    public func isIsolatingCurrentContext() -> Bool? {
        isOnThread
    }

    /// True when called on this executor's thread.
    public var isOnThread: Bool { loop.isCurrentThread }

    // MARK: Plain work

    /// Runs `body` on the thread (after the work queued before it) and returns what it returned
    /// or throws what it threw: for work that has no actor yet, such as opening what an actor
    /// will then own.
    public func perform<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) async throws(Failure) -> Value {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<Value, Failure>, Never>) in
            loop.submit(.closure {
                continuation.resume(returning: Result { () throws(Failure) -> Value in try body() })
            })
        }
        return try result.get()
    }

    /// Runs `body` on the thread and blocks the calling thread until it has: for a synchronous
    /// start-up, before the caller's own loop has other work. Never from the thread itself.
    public func performAndWait<Value: Sendable, Failure: Error>(
        _ body: @escaping @Sendable () throws(Failure) -> Value
    ) throws(Failure) -> Value {
        precondition(!isOnThread, "performAndWait on the \(name) thread itself would never return")
        let handoff = Handoff<Result<Value, Failure>>()
        loop.submit(.closure { handoff.put(Result { () throws(Failure) -> Value in try body() }) })
        return try handoff.take().get()
    }

    /// Runs `work` on the thread whenever its queue has drained after running at least one job or
    /// closure; replaces the previous idle work. `work` must not block for long: jobs that arrive
    /// meanwhile wait for it.
    public func whenIdle(_ work: (@Sendable () -> Void)?) {
        loop.setIdleWork(work)
    }

    /// Returns once the thread has run everything queued before this call, found its queue empty
    /// and done its idle work: for an orderly shutdown, and for tests that look at what the idle
    /// work did.
    public func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            loop.submit(.idleWaiter(continuation))
        }
    }
}

/// The thread's side: the queue, the wake-up event and the stop flag. The thread holds this, not
/// the executor, so that the executor can go away and end the thread.
private final class Loop: Sendable {
    enum Work: Sendable {
        case job(UnownedJob, UnownedSerialExecutor)
        case closure(@Sendable () -> Void)
        /// Resumed after the next idle work (`waitUntilIdle`).
        case idleWaiter(CheckedContinuation<Void, Never>)
    }

    private struct State {
        var queue: [Work] = []
        /// True while the thread is (about to be) asleep: only then must a submitter signal.
        var isWaiting = false
        var stopRequested = false
        var idleWork: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let wakeup: WakeupEvent
    /// pthread_t of the loop's thread, 0 until it runs.
    private let thread = Atomic<UInt>(0)

    init() throws(SystemError) {
        wakeup = try WakeupEvent()
    }

    var isCurrentThread: Bool {
        let loopThread = thread.load(ordering: .acquiring)
        return loopThread != 0 && pthread_equal(pthread_t(loopThread), pthread_self()) != 0
    }

    func submit(_ work: Work) {
        let mustWake = state.withLock { state in
            state.queue.append(work)
            return state.isWaiting
        }
        if mustWake { wakeup.signal() }
    }

    func setIdleWork(_ work: (@Sendable () -> Void)?) {
        state.withLock { $0.idleWork = work }
    }

    func stop() {
        let mustWake = state.withLock { state in
            state.stopRequested = true
            return state.isWaiting
        }
        if mustWake { wakeup.signal() }
    }

    func run() {
        thread.store(UInt(pthread_self()), ordering: .releasing)
        var batch: [Work] = []
        var ranSinceIdle = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        while true {
            enum Next { case run, idle((@Sendable () -> Void)?), sleep, stop }
            let next: Next = state.withLock { state in
                if !state.queue.isEmpty {
                    swap(&state.queue, &batch)
                    return .run
                }
                if ranSinceIdle { return .idle(state.idleWork) }
                if state.stopRequested { return .stop }
                state.isWaiting = true
                return .sleep
            }
            switch next {
            case .run:
                for work in batch {
                    switch work {
                    case let .job(job, executor): job.runSynchronously(on: executor)
                    case let .closure(body): body()
                    case let .idleWaiter(continuation): idleWaiters.append(continuation)
                    }
                }
                batch.removeAll(keepingCapacity: true)
                ranSinceIdle = true
            case let .idle(work):
                ranSinceIdle = false
                work?()
                for waiter in idleWaiters { waiter.resume() }
                idleWaiters.removeAll(keepingCapacity: true)
            case .sleep:
                let signalled = waitForWakeup()
                state.withLock { $0.isWaiting = false }
                // After clearing isWaiting nobody signals again, so this leaves the eventfd clear.
                if signalled { wakeup.drain() }
            case .stop:
                return
            }
        }
    }

    /// Sleeps in poll until the eventfd is signalled; no timeout, so an idle store never wakes.
    private func waitForWakeup() -> Bool {
        var descriptor = pollfd(fd: wakeup.descriptor, events: Int16(POLLIN), revents: 0)
        let result = poll(&descriptor, 1, -1)
        if result < 0 && errno != EINTR {
            // ENOMEM: cannot wait properly; pause briefly rather than spin, then look again.
            usleep(1000)
        }
        return result > 0 && descriptor.revents != 0
    }
}

/// One value passed from one thread to another that blocks until it is there (a POSIX semaphore).
private final class Handoff<Value: Sendable>: @unchecked Sendable {
    // @unchecked: `value` is written once before `sem_post` and read once after `sem_wait`, which
    // orders the two; the semaphore itself is made for use from several threads.
    private var value: Value?
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)

    init() {
        sem_init(semaphore, 0, 0)
    }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func put(_ value: Value) {
        self.value = value
        sem_post(semaphore)
    }

    func take() -> Value {
        while sem_wait(semaphore) != 0 {}  // only EINTR: wait on
        return value!
    }
}
