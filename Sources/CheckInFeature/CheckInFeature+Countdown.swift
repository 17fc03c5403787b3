public import CheckInModels
import CheckInStoreClient
import ComposableCore

extension CheckInFeature {
    /// Recomputes the phase from the last check-in, the settings, away mode and now, and schedules
    /// the single wake-up at the next boundary (or none when no boundary is ahead).
    func refreshPhase(_ state: inout State) -> Effect<Action> {
        guard state.hasLoadedSettings, state.hasLoadedHistory else {
            state.phase = .starting
            return .none
        }
        let now = clock.now()
        if state.needsLocalTime, now.wallClockSynchronized, state.trustedWall?.bootID != now.bootID { state.trustedWall = now }
        var effects: [Effect<Action>] = []
        if let away = state.away.running {
            let sinceStart = now.elapsedTime(since: away.start)
            if sinceStart.lowerBound < away.duration {
                // While away nothing is asked of the person; an unknown time since it began keeps it
                // on (never "overdue" from an untrusted clock) and says so.
                state.phase = .away(until: away.until)
                state.elapsedTimeUnknown = !sinceStart.isKnown
                state.localTimeUnknown = false
                return wakeUp(after: away.duration - sinceStart.lowerBound, state)
            }
            effects.append(awayExpired(away, now: now, &state))
        }
        guard state.lastCheckIn != nil || state.away.latest?.ended != nil,
              let elapsed = state.elapsedSinceOrigin(at: now) else {
            state.phase = .neverCheckedIn
            return merged(effects, .cancel(id: CancelID.phaseBoundary))
        }
        let untilBoundary: Duration?
        if let daily = state.schedule.daily {
            untilBoundary = refreshWindows(daily, elapsed: elapsed, now: now, &state)
        } else {
            state.elapsedTimeUnknown = !elapsed.isKnown
            untilBoundary = countdownPhase(elapsed: elapsed, interval: state.settings.interval,
                                           reminder: state.settings.reminder, now: now, &state)
        }
        return merged(effects, untilBoundary.map { wakeUp(after: $0, state) } ?? .cancel(id: CancelID.phaseBoundary))
    }

    /// `last` alone when nothing came before it (the common case keeps its one effect).
    func merged(_ effects: [Effect<Action>], _ last: Effect<Action>) -> Effect<Action> {
        effects.isEmpty ? last : .merge(effects + [last])
    }

    /// The rolling countdown (and the daily windows' fallback while the local time is unknown):
    /// checked in, then the reminder lead, then the last-chance grace, then overdue. Returns the
    /// time until the next boundary.
    func countdownPhase(elapsed: ElapsedTime, interval: Duration, reminder: Duration, now: DeviceInstant,
                        _ state: inout State) -> Duration? {
        let remaining = interval - max(elapsed.lowerBound, .zero)
        let countdown = Countdown(deadline: now.wall + remaining, remaining: remaining)
        if remaining <= .zero - state.grace {
            state.phase = .overdue(countdown)
            return nil
        }
        if remaining <= .zero {
            state.phase = .lastChance(countdown)
            return remaining + state.grace
        }
        if remaining <= reminder || !elapsed.isKnown {
            // Unknown elapsed time asks for a check-in (amber) rather than claiming "checked in";
            // `remaining` is then the most that can be left, and the wake-up comes when even the
            // lower bound has reached the deadline.
            state.phase = .reminder(countdown)
            return remaining
        }
        state.phase = .checkedIn(countdown)
        return remaining - reminder
    }

    /// The one wake-up at the next boundary.
    func wakeUp(after duration: Duration, _ state: State) -> Effect<Action> {
        guard state.isRunning else { return .cancel(id: CancelID.phaseBoundary) }
        return .run { [clock] send in
            do {
                try await clock.sleep(duration)
                await send(.phaseBoundaryReached)
            } catch {}  // rescheduled or stopping
        }
        .cancellable(id: CancelID.phaseBoundary, cancelInFlight: true)
    }

    /// Once the wall clock is trusted, check-ins of this boot that were stamped before it was get
    /// their wall time re-anchored from monotonic time (wall = now.wall − (now.uptime − uptime)),
    /// so that after a reboot they count as trusted. The history is reloaded afterwards.
    func reanchorWallTimesIfTrusted(_ state: State) -> Effect<Action> {
        let now = clock.now()
        guard now.wallClockSynchronized,
              state.history.contains(where: { $0.at.bootID == now.bootID && !$0.at.wallClockSynchronized })
        else { return .none }
        return .run { [store] send in
            await send(.wallTimesReanchored(await Result { () async throws(StoreFailure) in
                try await store.reanchorWallTimes(now)
            }))
        }
    }
}

extension CheckInFeature.State {
    /// Time since the countdown's origin: the last check-in or the end of the latest away period,
    /// whichever came later (the smaller time, as far as it is certain). Nil when there is neither.
    public func elapsedSinceOrigin(at now: DeviceInstant) -> ElapsedTime? {
        var candidates: [ElapsedTime] = []
        if let last = lastCheckIn { candidates.append(now.elapsedTime(since: last.at)) }
        if let away = away.latest, let sinceEnd = away.elapsedSinceEnd(at: now) { candidates.append(sinceEnd) }
        return candidates.min { $0.lowerBound < $1.lowerBound }
    }

    /// Local time is asked for: daily windows or quiet hours.
    var needsLocalTime: Bool { schedule.daily != nil || quietHours != nil }

    /// The wall clock as far as it can be trusted now: synchronised, or projected on monotonic time
    /// from this boot's last synchronised reading; nil when neither (docs/time.md).
    public func trustedWallTime(at now: DeviceInstant) -> WallTime? {
        if now.wallClockSynchronized { return now.wall }
        guard let anchor = trustedWall, anchor.bootID == now.bootID, now.uptime >= anchor.uptime else { return nil }
        return anchor.wall + (now.uptime - anchor.uptime)
    }

    /// The daily windows' countdown: to the deadline last evaluated, or, while the local time is
    /// unknown, to the fallback (the longest the schedule lets anyone go without a press).
    func windowCountdown(_ daily: DailySchedule, at now: DeviceInstant) -> Countdown? {
        if let deadline = windowDeadline, let wall = trustedWallTime(at: now) {
            return Countdown(deadline: deadline, remaining: deadline - wall)
        }
        guard let elapsed = elapsedSinceOrigin(at: now) else { return nil }
        let remaining = daily.longestGap - max(elapsed.lowerBound, .zero)
        return Countdown(deadline: now.wall + remaining, remaining: remaining)
    }
}
