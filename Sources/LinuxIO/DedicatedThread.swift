import CLinuxSupport
import Glibc
import Synchronization

/// A plain pthread for a blocking loop (poll on descriptors).
///
/// Blocking work must not sit on a Swift concurrency or Dispatch global-queue thread: it would hold
/// a thread of the small cooperative pool, and a Dispatch global queue brings libdispatch's 1 Hz
/// pool monitor, which wakes an otherwise idle device every second.
public final class DedicatedThread: Sendable {
    private let thread: Mutex<pthread_t?>
    public let name: String

    /// Starts `body` on a new thread named `name` (the kernel keeps the first 15 bytes).
    public static func start(
        name: String,
        _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) -> DedicatedThread {
        let box = Unmanaged.passRetained(Body(body))
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw SystemError("pthread_create", name, errno: result)
        }
        _ = pthread_setname_np(handle, String(name.utf8.prefix(15))!)
        return DedicatedThread(handle, name: name)
    }

    private init(_ handle: pthread_t, name: String) {
        self.thread = Mutex(handle)
        self.name = name
    }

    /// Waits for the thread to end. Idempotent; from the thread itself it detaches instead of
    /// deadlocking.
    public func join() {
        guard let handle = thread.withLock({ state -> pthread_t? in
            defer { state = nil }
            return state
        }) else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    deinit {
        // A thread nobody joined must still release its resources when it ends.
        if let handle = thread.withLock({ $0 }) { pthread_detach(handle) }
    }
}

private final class Body {
    let run: @Sendable () -> Void
    init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
