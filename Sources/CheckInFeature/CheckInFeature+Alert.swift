import CheckInModels
import CheckInStoreClient
import ComposableCore

extension CheckInFeature {
    func reduceAlert(into state: inout State, action: AlertAction) -> Effect<Action> {
        switch action {
        case let .requested(source):
            return openAlertWindow(&state, source: source)

        case let .cancelRequested(source):
            guard state.alert.window != nil else { return .none }
            state.alert.window = nil
            return .merge(.cancel(id: CancelID.alertWindow), .send(.delegate(.alertCancelled(source))))

        case .cancelWindowEnded:
            guard let window = state.alert.window else { return .none }
            state.alert.window = nil
            state.alert.isStoring = true
            let alert = AlertRecord(id: newCheckInID(), at: window.requestedAt, source: window.source)
            // Kept until stored: a help request is never dropped because the store failed once.
            state.alert.unsaved = alert
            return storeAlert(alert)

        case let .storeResponse(.success(record)):
            state.alert.isStoring = false
            if state.alert.unsaved?.id == record.id { state.alert.unsaved = nil }
            if !state.alert.unacknowledged.contains(record.id) { state.alert.unacknowledged.append(record.id) }
            return .send(.delegate(.alertStored(record)))

        case let .storeResponse(.failure(failure)):
            state.alert.isStoring = false
            return .send(.delegate(.alertNotStored(failure)))

        case .loadPending:
            return .run { [alertStore] send in
                await send(.alert(.pendingResponse(await Result { () async throws(StoreFailure) in
                    try await alertStore.pending()
                })))
            }

        case let .pendingResponse(.success(records)):
            // Alerts stored in this run are in the store too: keep their order, add none twice.
            state.alert.unacknowledged = records.map(\.id) + state.alert.unacknowledged.filter { id in
                !records.contains { $0.id == id }
            }
            return .none

        case .pendingResponse(.failure):
            // The check-in loads report an unreadable store; the uploader still sends what it can read.
            return .none

        case let .acknowledged(ids):
            // Only a first acknowledgement delivers: a second target taking the same alert later
            // changes nothing on the LEDs.
            guard let last = ids.last(where: state.alert.unacknowledged.contains) else { return .none }
            state.alert.unacknowledged.removeAll { ids.contains($0) }
            if state.alert.unacknowledged.isEmpty {
                state.alert.sendingRefused = nil
            }
            state.alert.delivered = last
            let display = state.alert.settings?.deliveredDisplay ?? .seconds(30)
            return .run { [clock] send in
                do {
                    try await clock.sleep(display)
                    await send(.alert(.deliveredDisplayEnded))
                } catch {}  // a newer acknowledgement restarted it, or stopping
            }
            .cancellable(id: CancelID.alertDelivered, cancelInFlight: true)

        case let .sendingRefused(message):
            guard !state.alert.unacknowledged.isEmpty else { return .none }
            state.alert.sendingRefused = message
            return .none

        case .deliveredDisplayEnded:
            state.alert.delivered = nil
            return .none
        }
    }

    func storeAlert(_ alert: AlertRecord) -> Effect<Action> {
        .run { [alertStore] send in
            await send(.alert(.storeResponse(await Result { () async throws(StoreFailure) in
                try await alertStore.record(alert)
            })))
        }
    }

    /// Opens the cancel window (alerts on, none open): its pattern replaces any feedback, and one
    /// wake-up ends it.
    func openAlertWindow(_ state: inout State, source: AlertSource) -> Effect<Action> {
        guard let settings = state.alert.settings, state.alert.window == nil, state.isRunning else { return .none }
        state.alert.window = AlertState.Window(requestedAt: clock.now(), source: source)
        state.feedback = nil
        return .merge(
            .cancel(id: CancelID.feedback),
            .run { [clock] send in
                do {
                    try await clock.sleep(settings.cancelWindow)
                    await send(.alert(.cancelWindowEnded))
                } catch {}  // cancelled by a press or the CLI, or stopping
            }
            .cancellable(id: CancelID.alertWindow, cancelInFlight: true)
        )
    }
}
