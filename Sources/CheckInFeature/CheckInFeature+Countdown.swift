import CheckInModels
import CheckInStoreClient
import ComposableCore

extension CheckInFeature {
    /// Recomputes the phase from the last check-in, the settings and now, and schedules the single
    /// wake-up at the next boundary (or none when no boundary is ahead).
    func refreshPhase(_ state: inout State) -> Effect<Action> {
        guard state.hasLoadedSettings, state.hasLoadedHistory else {
            state.phase = .starting
            return .none
        }
        guard let last = state.lastCheckIn else {
            state.phase = .neverCheckedIn
            return .cancel(id: CancelID.phaseBoundary)
        }
        let now = clock.now()
        let elapsed = now.elapsedTime(since: last.at)
        state.elapsedTimeUnknown = !elapsed.isKnown
        let countdown = state.countdown(at: now) ?? Countdown(deadline: now.wall, remaining: .zero)
        let remaining = countdown.remaining

        let untilBoundary: Duration?
        if remaining <= .zero {
            state.phase = .overdue(countdown)
            untilBoundary = nil
        } else if remaining <= state.settings.reminder || !elapsed.isKnown {
            // Unknown elapsed time asks for a check-in (amber) rather than claiming "checked in";
            // `remaining` is then the most that can be left, and the wake-up comes when even the
            // lower bound has reached the deadline.
            state.phase = .reminder(countdown)
            untilBoundary = remaining
        } else {
            state.phase = .checkedIn(countdown)
            untilBoundary = remaining - state.settings.reminder
        }
        guard let untilBoundary, state.isRunning else { return .cancel(id: CancelID.phaseBoundary) }
        return .run { [clock] send in
            do {
                try await clock.sleep(untilBoundary)
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
