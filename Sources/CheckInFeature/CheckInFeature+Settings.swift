import CheckInModels
import CheckInStoreClient
import ComposableCore

extension CheckInFeature {
    /// Settings arrived from the store. A config file that asks for settings different from those
    /// it last applied wins (the operator edited it); otherwise the stored settings stand.
    func reduceLoadedSettings(into state: inout State, result: Result<StoredSettings?, StoreFailure>) -> Effect<Action> {
        switch result {
        case let .failure(failure):
            return .send(.delegate(.loadFailed(failure)))

        case let .success(stored):
            state.hasLoadedSettings = true
            state.settingsVersion = stored?.version ?? 0
            state.appliedFromConfig = stored?.appliedFromConfig
            let away = reconcileAway(with: stored, &state)
            if let configured = state.configuredSettings, configured != stored?.appliedFromConfig {
                state.appliedFromConfig = configured
                return .merge(select(configured, into: &state), away)
            }
            var refused: Effect<Action> = .none
            if let stored {
                if case let .failure(problem) = state.policy.validate(stored.settings) {
                    // Never fall back silently: keep the stored values and say why they are suspect.
                    refused = .send(.delegate(.storedSettingsRefused(problem)))
                }
                state.settings = stored.settings
            }
            return .merge(refreshPhase(&state), refused, away)
        }
    }

    /// Validates and applies a selection; the deadline moves at once (from the last check-in) and
    /// the new settings are saved.
    func select(_ candidate: CheckInSettings, into state: inout State) -> Effect<Action> {
        if case let .failure(problem) = state.policy.validate(candidate) {
            return .send(.delegate(.settingsRejected(problem)))
        }
        state.settings = candidate
        state.settingsVersion += 1
        let stored = state.storedSettings()
        // Kept until saved: a store that cannot write now gets them again once it can.
        state.unsavedSettings = stored
        return .merge(refreshPhase(&state), save(stored))
    }

    func save(_ stored: StoredSettings) -> Effect<Action> {
        .run { [store] send in
            await send(.settingsSaveResponse(await Result { () async throws(StoreFailure) in
                try await store.saveSettings(stored)
                return stored
            }))
        }
    }
}
