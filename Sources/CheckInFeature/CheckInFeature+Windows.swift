import CheckInModels
import ComposableCore

/// Daily windows (`schedule = "daily"`): a press inside a window satisfies it; the window's start
/// is the reminder, its end the deadline, then the grace, then overdue, which lasts until a press.
/// A press outside any window is stored and shown but satisfies no later window; a press after a
/// missed window's end answers it (the person is fine) without counting for the next one.
/// Windows that began before the latest away period ended do not count.
///
/// The instants of each window come from the zone's offsets (the C library over the system's
/// tzdata), so a window keeps its local time across daylight-saving changes; a window time that
/// does not exist on a spring-forward night is the instant after the gap, one that happens twice
/// on a fall-back night the first (`ZoneMath.instant`).
extension CheckInFeature {
    /// Evaluates the windows around now; returns the time until the next boundary.
    func refreshWindows(_ daily: DailySchedule, elapsed: ElapsedTime, now: DeviceInstant, _ state: inout State) -> Duration? {
        state.elapsedTimeUnknown = false
        guard let wall = state.trustedWallTime(at: now), let verdict = windowVerdict(daily, wall: wall, now: now, state) else {
            // No local time (no synchronised clock this boot, or the zone unreadable): ask for a
            // press, never claim "checked in", and declare overdue only once even the longest
            // time the schedule allows without a press has certainly passed (docs/time.md).
            state.localTimeUnknown = true
            state.windowDeadline = nil
            return countdownPhase(elapsed: .atLeast(elapsed.lowerBound), interval: daily.longestGap, reminder: daily.longestGap,
                                  now: now, &state)
        }
        state.localTimeUnknown = false
        state.windowDeadline = verdict.deadline
        let countdown = verdict.deadline.map { Countdown(deadline: $0, remaining: $0 - wall) }
            ?? Countdown(deadline: wall, remaining: .zero)
        switch verdict.kind {
        case .satisfied: state.phase = .checkedIn(countdown)
        case .open: state.phase = .reminder(countdown)
        case .grace: state.phase = .lastChance(countdown)
        case .missed: state.phase = .overdue(countdown)
        }
        return verdict.nextBoundary.map { $0 - wall }
    }

    struct WindowVerdict: Equatable {
        enum Kind { case satisfied, open, grace, missed }
        var kind: Kind
        /// The deadline shown: the open or missed window's end, else the next window's.
        var deadline: WallTime?
        var nextBoundary: WallTime?
    }

    func windowVerdict(_ daily: DailySchedule, wall: WallTime, now: DeviceInstant, _ state: State) -> WindowVerdict? {
        let offsets = timeZone.offsets(daily.timeZone)
        guard let offset = offsets(wall) else { return nil }
        let today = ZoneMath.local(wall, offset: offset).date
        // A week either side always holds the previous and the next window (a schedule asks on at
        // least one day a week).
        guard let all = daily.occurrences(from: today.adding(days: -8), through: today.adding(days: 8), offsets: offsets)
        else { return nil }
        let awayEnd = state.away.latest?.ended != nil ? state.away.latest?.endWall : nil
        let counted = all.filter { occurrence in awayEnd.map { occurrence.start >= $0 } ?? true }
        let started = counted.filter { $0.start <= wall }
        let next = counted.first { $0.start > wall }
        let answered = { (occurrence: DailySchedule.Occurrence) in self.pressed(since: occurrence.start, now: now, state) }

        // The latest window whose grace has ended decides overdue: if it was answered, so were
        // all before it.
        if let ended = started.last(where: { $0.end + state.grace <= wall }), !answered(ended) {
            return WindowVerdict(kind: .missed, deadline: ended.end, nextBoundary: nil)
        }
        guard let latest = started.last else {
            return WindowVerdict(kind: .satisfied, deadline: next?.end, nextBoundary: next?.start)
        }
        if answered(latest) || wall >= latest.end + state.grace {
            return WindowVerdict(kind: .satisfied, deadline: next?.end, nextBoundary: next?.start)
        }
        if wall < latest.end {
            return WindowVerdict(kind: .open, deadline: latest.end, nextBoundary: latest.end)
        }
        return WindowVerdict(kind: .grace, deadline: latest.end, nextBoundary: latest.end + state.grace)
    }

    /// Whether the newest check-in was made at or after `start`. A check-in stamped while the
    /// clock was not trusted is placed from this boot's trusted reading when it is of this boot;
    /// one of an earlier boot that never saw a trusted clock lies somewhere before this boot
    /// began, and is taken to answer windows that began before then too (never an overdue
    /// from an unknown time).
    func pressed(since start: WallTime, now: DeviceInstant, _ state: State) -> Bool {
        guard let last = state.lastCheckIn else { return false }
        if last.at.wallClockSynchronized { return last.at.wall >= start }
        if let anchor = state.trustedWall, anchor.bootID == last.at.bootID {
            return anchor.wall + (last.at.uptime - anchor.uptime) >= start
        }
        guard let wall = state.trustedWallTime(at: now) else { return true }
        let bootStart = wall + (.zero - now.uptime)
        return start < bootStart
    }
}
