import ComposableCore
import CheckInModels

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
        // A wall clock that went backwards across a reboot must not stretch the countdown beyond one
        // interval from now. (Clock trust across reboots is refined by the time-handling work.)
        let elapsed = max(now.elapsed(since: last.at), .zero)
        let remaining = state.settings.interval - elapsed
        let countdown = Countdown(deadline: now.wall + remaining, remaining: remaining)

        let untilBoundary: Duration?
        if remaining <= .zero {
            state.phase = .overdue(countdown)
            untilBoundary = nil
        } else if remaining <= state.settings.reminder {
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
}
