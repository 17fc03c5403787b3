import CLinuxSupport
import Glibc
import Synchronization

/// A plain pthread for a blocking loop (poll on descriptors).
///
/// Blocking work must not sit on a Swift concurrency or Dispatch global-queue thread: it would hold
/// a thread of the small cooperative pool, and a Dispatch global queue brings libdispatch's 1 Hz
/// pool monitor, which wakes an otherwise idle device every second.
///
/// Every thread is either joined or detached, never left as a finished zombie: a thread whose body
/// ends before anyone joins it detaches itself (its owner may have decided not to wait, e.g. a
/// shutdown that does not block on an HTTP request in flight).
public final class DedicatedThread: Sendable {
    private let lifecycle: Lifecycle
    public let name: String

    /// Starts `body` on a new thread named `name` (the kernel keeps the first 15 bytes).
    public static func start(
        name: String,
        _ body: @escaping @Sendable () -> Void
    ) throws(SystemError) -> DedicatedThread {
        let lifecycle = Lifecycle()
        let box = Unmanaged.passRetained(Body(body, lifecycle: lifecycle))
        var handle = pthread_t()
        let result = pthread_create(&handle, nil, { context in
            let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
            body.run()
            body.lifecycle.bodyFinished()
            return nil
        }, box.toOpaque())
        guard result == 0 else {
            box.release()
            throw SystemError("pthread_create", name, errno: result)
        }
        _ = pthread_setname_np(handle, String(name.utf8.prefix(15))!)
        lifecycle.started(handle)
        return DedicatedThread(lifecycle, name: name)
    }

    private init(_ lifecycle: Lifecycle, name: String) {
        self.lifecycle = lifecycle
        self.name = name
    }

    /// Waits for the thread's body to end. Idempotent; from the thread itself it returns at once
    /// instead of deadlocking.
    public func join() {
        lifecycle.join()
    }

    deinit {
        // A thread nobody joined must still release its resources when it ends.
        lifecycle.detach()
    }
}

/// Who releases the thread: the first of join, detach (owner gone) and the body's end decides.
private final class Lifecycle: Sendable {
    private enum State {
        /// `pthread_create` has not returned its handle yet.
        case starting
        /// The body ended before the handle was known: detach as soon as it is.
        case finishedWhileStarting
        case running(pthread_t)
        /// Joined or detached: nothing left to release.
        case released
    }

    private let state = Mutex(State.starting)

    func started(_ handle: pthread_t) {
        let finished = state.withLock { state -> Bool in
            if case .finishedWhileStarting = state { state = .released; return true }
            state = .running(handle)
            return false
        }
        if finished { pthread_detach(handle) }
    }

    /// Called on the thread itself as its last step.
    func bodyFinished() {
        let handle = state.withLock { state -> pthread_t? in
            switch state {
            case .starting:
                state = .finishedWhileStarting
                return nil
            case .running(let handle):
                state = .released
                return handle
            case .finishedWhileStarting, .released:
                return nil
            }
        }
        if let handle { pthread_detach(handle) }
    }

    func join() {
        guard let handle = take() else { return }
        if pthread_equal(handle, pthread_self()) != 0 {
            pthread_detach(handle)
        } else {
            pthread_join(handle, nil)
        }
    }

    func detach() {
        if let handle = take() { pthread_detach(handle) }
    }

    private func take() -> pthread_t? {
        state.withLock { state -> pthread_t? in
            guard case .running(let handle) = state else { return nil }
            state = .released
            return handle
        }
    }
}

private final class Body {
    let run: @Sendable () -> Void
    let lifecycle: Lifecycle
    init(_ run: @escaping @Sendable () -> Void, lifecycle: Lifecycle) {
        self.run = run
        self.lifecycle = lifecycle
    }
}
