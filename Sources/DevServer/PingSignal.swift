import Glibc

/// Wakes the connection threads holding a `GET /v1/pings` long poll when a ping is created (or the
/// server stops). A condition variable: a waiting thread sleeps in the kernel until it is signalled
/// or its deadline passes, with no polling.
final class PingSignal: @unchecked Sendable {
    // @unchecked: the mutex and condition are only touched through pthread calls, which synchronise.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private let condition: UnsafeMutablePointer<pthread_cond_t>
    /// Bumped on every change; guarded by `mutex`.
    private var generation: UInt64 = 0
    private var stopped = false

    init() {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        condition = .allocate(capacity: 1)
        condition.initialize(to: pthread_cond_t())
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        // Deadlines on the monotonic clock: a wall-clock step must not cut a poll short or stretch it.
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        condition.deallocate()
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// The current generation, to pass to `wait(after:seconds:)` after checking for pings.
    var current: UInt64 {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return generation
    }

    /// Something changed (a ping was created): wake every waiter.
    func signal() {
        pthread_mutex_lock(mutex)
        generation &+= 1
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// The server is stopping: wake every waiter now and let later ones return at once.
    func stop() {
        pthread_mutex_lock(mutex)
        stopped = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Sleeps until the generation moves past `seen`, the server stops, or `deadline` (CLOCK_MONOTONIC)
    /// passes. Returns false once the deadline has passed or the server stops.
    func wait(after seen: UInt64, until deadline: timespec) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var limit = deadline
        while generation == seen && !stopped {
            if pthread_cond_timedwait(condition, mutex, &limit) == ETIMEDOUT { return false }
        }
        return !stopped
    }

    /// CLOCK_MONOTONIC now plus `seconds`.
    static func deadline(inSeconds seconds: Int) -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        now.tv_sec += seconds
        return now
    }
}
