/// When to try again after a transient failure: exponential backoff with full jitter, capped,
/// never earlier than the server's `Retry-After`.
///
/// Full jitter (a uniformly random delay between zero and the exponential bound) keeps a fleet of
/// devices that lost the backend at the same moment from coming back in lock-step.
public struct RetryPolicy: Hashable, Sendable {
    /// The bound after the first failure; it doubles with each further consecutive failure.
    public var initial: Duration
    /// The largest bound backoff reaches.
    public var cap: Duration
    /// The longest `Retry-After` obeyed, so a confused server cannot park the device for days.
    public var longestRetryAfter: Duration

    public init(initial: Duration = .seconds(2), cap: Duration = .seconds(900), longestRetryAfter: Duration = .seconds(3600)) {
        self.initial = initial
        self.cap = max(cap, initial)
        self.longestRetryAfter = longestRetryAfter
    }

    /// The exponential bound after `failures` consecutive failures (1 = the first).
    public func bound(afterFailures failures: Int) -> Duration {
        var bound = initial
        for _ in 1..<max(failures, 1) {
            if bound >= cap { break }
            bound = bound * 2
        }
        return min(bound, cap)
    }

    /// The delay before the next attempt.
    public func delay(
        afterFailures failures: Int, retryAfter: Duration?, using generator: inout some RandomNumberGenerator
    ) -> Duration {
        let bound = bound(afterFailures: failures).wholeMilliseconds
        let jittered = Duration.milliseconds(bound > 0 ? Int64.random(in: 0...bound, using: &generator) : 0)
        guard let retryAfter else { return jittered }
        return max(jittered, min(retryAfter, longestRetryAfter))
    }
}

extension Duration {
    var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
