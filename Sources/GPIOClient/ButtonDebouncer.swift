/// Stable-level debouncing on monotonic time, shared by every backend that debounces in user space.
///
/// A level counts only once the line has stayed at it for `period`; every edge restarts the wait.
/// This is not a lock-out window (which would accept the first edge of a burst and could report a
/// press from a single glitch): a 20-edge chatter burst ending pressed is exactly one press, and a
/// spike shorter than `period` is nothing.
public struct ButtonDebouncer: Sendable {
    public let period: Duration
    /// The level last reported (false = released).
    public private(set) var stableLevel: Bool
    /// The raw level and when it was first seen, while it has not yet been stable for `period`.
    public private(set) var candidate: (level: Bool, since: Duration)?

    public init(period: Duration, initialLevel: Bool = false) {
        precondition(period >= .zero, "debounce period must not be negative")
        self.period = period
        self.stableLevel = initialLevel
    }

    /// Feeds a raw edge. Returns the time at which `settle(at:)` must be called next, if any.
    public mutating func edge(level: Bool, at time: Duration) -> Duration? {
        if level == stableLevel {
            candidate = nil  // bounced back: nothing changed
            return nil
        }
        // A new level, or the same one again after an opposite edge we never saw: (re)start the wait.
        candidate = (level, time)
        return time + period
    }

    /// Reports the new stable level if the candidate has lasted `period` by `time`.
    public mutating func settle(at time: Duration) -> ButtonEvent? {
        guard let candidate, time - candidate.since >= period else { return nil }
        self.candidate = nil
        stableLevel = candidate.level
        return ButtonEvent(candidate.level ? .pressed : .released, at: candidate.since)
    }

    /// When the pending candidate will settle, if there is one.
    public var settleDeadline: Duration? {
        candidate.map { $0.since + period }
    }
}
