import CheckInModels
import ComposableCore

extension CheckInFeature {
    /// Decides whether the oldest unacknowledged check-in has waited too long, and schedules the one
    /// wake-up at which it will have (monotonic time; across a reboot with an untrusted wall clock
    /// only the certain lower bound of the wait counts, so the mark may come late, never early).
    func refreshUploadBacklog(_ state: inout State) -> Effect<Action> {
        guard let staleAfter = state.uploadBacklog.staleAfter, let oldest = state.uploadBacklog.oldestPendingSince else {
            state.uploadBacklog.isStale = false
            return .cancel(id: CancelID.uploadStale)
        }
        let waited = max(clock.now().elapsedTime(since: oldest).lowerBound, .zero)
        state.uploadBacklog.isStale = waited >= staleAfter
        guard !state.uploadBacklog.isStale, state.isRunning else { return .cancel(id: CancelID.uploadStale) }
        return .run { [clock] send in
            do {
                try await clock.sleep(staleAfter - waited)
                await send(.uploadBacklogWaitReached)
            } catch {}  // the backlog changed, or stopping
        }
        .cancellable(id: CancelID.uploadStale, cancelInFlight: true)
    }
}
