import GPIOClient

/// One edge as the kernel reported it, before debouncing. Times are CLOCK_MONOTONIC.
struct RawEdge: Hashable, Sendable {
    /// Towards the active (pressed) level.
    var rising: Bool
    var at: Duration
    /// The kernel's per-line sequence number, 1, 2, ...; 0 when the API has none (libgpiod 1.x).
    var lineSequence: UInt64
}

/// Turns the button line's raw edges and level reads into debounced `ButtonEvent`s.
///
/// Pure logic, driven by the event thread (which owns the line) and by tests. With libgpiod 1.x
/// the debouncing happens here, with `ButtonDebouncer`'s stable-level rule; with 2.x the kernel
/// already debounced with the same rule, so `userSpaceDebounce` is zero and this only tracks
/// the level, sequence numbers and the held re-check.
struct ButtonLineTracker {
    private(set) var debouncer: ButtonDebouncer
    /// The kernel stamps a debounced edge when the level has been stable for its period; moving
    /// the stamp back by that period gives the time of the edge itself, as `ButtonEvent.at` means.
    let kernelDebounce: Duration
    /// Nil: the level is never read again on a timer (an input such as the mains line, whose edges
    /// are all that matter; a re-read every half second would wake an idle device for ever).
    let heldRecheckInterval: Duration?
    private var lastSequence: UInt64 = 0
    private var lastLevelCheck: Duration

    init(userSpaceDebounce: Duration, kernelDebounce: Duration, heldRecheckInterval: Duration?,
         initialLevel: Bool, at now: Duration) {
        self.debouncer = ButtonDebouncer(period: userSpaceDebounce, initialLevel: initialLevel)
        self.kernelDebounce = kernelDebounce
        self.heldRecheckInterval = heldRecheckInterval
        self.lastLevelCheck = now
    }

    /// Whether the button counts as held right now.
    var isPressed: Bool { debouncer.stableLevel }

    /// Feeds one raw edge; returns any level that became stable before it, and how many edges the
    /// kernel dropped before this one (sequence gap). After a gap, read the level (`levelRead`).
    mutating func edge(_ edge: RawEdge) -> (events: [ButtonEvent], lost: UInt64) {
        var lost: UInt64 = 0
        if edge.lineSequence != 0 {
            if edge.lineSequence > lastSequence + 1 { lost = edge.lineSequence - lastSequence - 1 }
            lastSequence = edge.lineSequence
        }
        let time = edge.at - kernelDebounce
        // A candidate that was stable until this edge arrived did become a real level first.
        var events: [ButtonEvent] = []
        if let settled = debouncer.settle(at: time) { events.append(settled) }
        _ = debouncer.edge(level: edge.rising, at: time)
        return (events, lost)
    }

    /// A fresh read of the line: treated as an edge only if it disagrees with what is known.
    mutating func levelRead(_ level: Bool, at now: Duration) {
        lastLevelCheck = now
        if let candidate = debouncer.candidate {
            if candidate.level == level { return }  // already on its way to that level
        } else if level == debouncer.stableLevel {
            return
        }
        _ = debouncer.edge(level: level, at: now)
    }

    /// Reports the level that has become stable by `now`, if any.
    mutating func settle(at now: Duration) -> ButtonEvent? {
        debouncer.settle(at: now)
    }

    /// When the event thread must wake without an edge: to settle a pending level, or to re-read
    /// a held button. `nil` (sleep until an edge) whenever the button is idle and released.
    var wakeDeadline: Duration? {
        if let deadline = debouncer.settleDeadline { return deadline }
        guard let heldRecheckInterval else { return nil }
        return debouncer.stableLevel ? lastLevelCheck + heldRecheckInterval : nil
    }

    /// True when `wakeDeadline` has passed for a held button with nothing pending: read the line.
    func needsLevelCheck(at now: Duration) -> Bool {
        guard let heldRecheckInterval else { return false }
        return debouncer.candidate == nil && debouncer.stableLevel && now >= lastLevelCheck + heldRecheckInterval
    }
}
