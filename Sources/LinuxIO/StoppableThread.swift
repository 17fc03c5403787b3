import Synchronization

/// The stop machinery of a monitor's poll loop on a thread of its own: a wake-up event the loop
/// watches next to its real descriptors, a stop flag, and the thread to join.
public final class StoppableThread: Sendable {
    /// Watch this for `POLLIN` beside the loop's own descriptors.
    public let wakeup: WakeupEvent
    private let stopping = Atomic<Bool>(false)
    private let thread: Mutex<DedicatedThread?> = Mutex(nil)

    public init() throws(SystemError) {
        wakeup = try WakeupEvent()
    }

    /// True once `stop()` was called: the loop returns.
    public var isStopping: Bool { stopping.load(ordering: .sequentiallyConsistent) }

    /// Runs `loop` on a new thread named `name`.
    public func start(name: String, _ loop: @escaping @Sendable () -> Void) throws(SystemError) {
        let started = try DedicatedThread.start(name: name, loop)
        thread.withLock { $0 = started }
    }

    /// Tells the loop to return and waits for its thread. Idempotent.
    public func stop() {
        stopping.store(true, ordering: .sequentiallyConsistent)
        wakeup.signal()
        thread.withLock { $0 }?.join()
    }
}
