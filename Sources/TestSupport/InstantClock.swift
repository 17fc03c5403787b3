import Synchronization

/// A monotonic clock whose `sleep` advances time at once: one task runs through hours of simulated
/// time in microseconds, deterministically (a simulated button's press, say).
public final class InstantClock: Sendable {
    private let time = Mutex<Duration>(.seconds(1000))

    public init() {}

    public var now: Duration { time.withLock { $0 } }

    public func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    public func sleep(_ duration: Duration) async throws {
        try Task.checkCancellation()
        time.withLock { $0 += max(.zero, duration) }
    }
}
