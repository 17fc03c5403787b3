/// When to try again after consecutive failures: exponential from `initial`, capped at `cap`,
/// never earlier than a server's `Retry-After`. The one retry rule of the device: uploads, pings,
/// heartbeats, notifications, reopening the store and waiting for the GPIO chip all use it.
///
/// With full jitter the delay is uniformly random between zero and the exponential bound, so a
/// fleet of devices that lost the backend at the same moment does not come back in lock-step.
/// Local retries (the store, the GPIO chip) have no fleet to spread and use no jitter.
public struct Backoff: Hashable, Sendable {
    public enum Jitter: Hashable, Sendable {
        /// Exactly the exponential bound.
        case none
        /// Uniformly random in 0…bound.
        case full
    }

    /// The bound after the first failure; it doubles with each further consecutive failure.
    public var initial: Duration
    /// The largest bound the backoff reaches.
    public var cap: Duration
    public var jitter: Jitter
    /// The longest `Retry-After` obeyed, so a confused server cannot park the device for days.
    public var longestRetryAfter: Duration

    public init(initial: Duration, cap: Duration, jitter: Jitter, longestRetryAfter: Duration = .seconds(3600)) {
        self.initial = max(initial, .zero)
        self.cap = max(cap, self.initial)
        self.jitter = jitter
        self.longestRetryAfter = longestRetryAfter
    }

    /// Talking to a server: from 2 s (or `cap` if smaller), full jitter.
    public static func network(cap: Duration) -> Backoff {
        Backoff(initial: min(.seconds(2), cap), cap: cap, jitter: .full)
    }

    /// Waiting for something on the device itself (the store, the GPIO chip): 1 s, 2 s, 4 s … 60 s.
    public static let local = Backoff(initial: .seconds(1), cap: .seconds(60), jitter: .none)

    /// The exponential bound after `failures` consecutive failures (1 = the first).
    public func bound(afterFailures failures: Int) -> Duration {
        var bound = initial
        for _ in 1..<max(failures, 1) {
            if bound >= cap { break }
            bound = bound * 2
        }
        return min(bound, cap)
    }

    /// The delay before the next attempt. `random` returns a number in the range it is given (the
    /// device's random source; tests pass a fixed one).
    public func delay(
        afterFailures failures: Int, retryAfter: Duration? = nil, random: (ClosedRange<Int64>) -> Int64
    ) -> Duration {
        let bound = bound(afterFailures: failures)
        let delay: Duration
        switch jitter {
        case .none:
            delay = bound
        case .full:
            let milliseconds = bound.wholeMilliseconds
            delay = .milliseconds(milliseconds > 0 ? min(max(random(0...milliseconds), 0), milliseconds) : 0)
        }
        guard let retryAfter else { return delay }
        return max(delay, min(retryAfter, longestRetryAfter))
    }
}

extension Duration {
    /// Whole milliseconds, saturating at the ends of `Int64`.
    public var wholeMilliseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflowAgain) = product.addingReportingOverflow(attoseconds / 1_000_000_000_000_000)
        return overflowAgain ? (product < 0 ? .min : .max) : sum
    }
}
