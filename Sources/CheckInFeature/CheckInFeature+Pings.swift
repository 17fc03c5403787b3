import CheckInModels
import CheckInStoreClient
import ComposableCore

/// Responders' pings (the app's `PingFeature`): pending pings light their own pattern, and the next
/// check-in answers every one of them (`respondToPing`), in the same durable write as the check-in.
extension CheckInFeature {
    /// Adds the pings not already pending, keeping arrival order.
    func receivePings(_ pings: [PendingPing], into state: inout State) {
        var known = Set(state.pendingPings.map(\.id))
        for ping in pings where known.insert(ping.id).inserted {
            state.pendingPings.append(ping)
        }
    }

    /// The check-in and one response per pending ping, written in ONE transaction.
    func checkInAnsweringPings(_ checkIn: NewCheckIn, into state: inout State) -> Effect<Action> {
        let responses = state.pendingPings.map { ping in
            PingResponse(id: newCheckInID(), pingID: ping.id, checkInID: checkIn.id, at: checkIn.at.wall)
        }
        state.pingResponsesBeingStored = responses
        return .run { [store] send in
            await send(.checkInResponse(await Result { () async throws(StoreFailure) in
                try await store.recordAnsweringPings(checkIn, responses)
            }))
        }
    }

    /// After a stored check-in: the pings it answered are no longer pending.
    func pingsAnswered(into state: inout State) -> Effect<Action> {
        let responses = state.pingResponsesBeingStored
        guard !responses.isEmpty else { return .none }
        state.pingResponsesBeingStored = []
        let answered = Set(responses.map(\.pingID))
        state.pendingPings.removeAll { answered.contains($0.id) }
        return .send(.delegate(.pingsAnswered(responses)))
    }
}
