import ComposableCore

extension CheckInFeature {
    /// Short press (released before the long-press time) = check-in; long press = its own gesture
    /// (with alerts on: a request for help), and its release is never also a check-in. A press while
    /// an alert's cancel window is open cancels the alert and is not a check-in either.
    func reduceButton(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .buttonPressed:
            guard state.button == .released else { return .none }
            if state.alert.window != nil {
                // A press in the cancel window cancels the alert and is not a check-in.
                state.button = .consumed
                return reduceAlert(into: &state, action: .cancelRequested(.button))
            }
            state.button = .held
            return .run { [clock, duration = state.longPressDuration] send in
                do {
                    try await clock.sleep(duration)
                    await send(.longPressThresholdReached)
                } catch {}  // released in time
            }
            .cancellable(id: CancelID.longPress, cancelInFlight: true)

        case .buttonReleased:
            let wasShortPress = state.button == .held
            state.button = .released
            guard wasShortPress else { return .none }
            // The check-in starts in this same step rather than as an action of its own: nothing
            // but the store's write stands between the release and the acknowledgement.
            return .merge(.cancel(id: CancelID.longPress), reduce(into: &state, action: .checkInRequested(.button)))

        case .longPressThresholdReached:
            guard state.button == .held else { return .none }
            state.button = .longPressed
            guard state.alert.settings != nil else {
                state.feedback = .longPress
                return .merge(showFeedback(for: state.acknowledgementDuration), .send(.delegate(.longPressed)))
            }
            // With alerts on, the long press asks for help: the cancel window's pattern is its feedback.
            return .merge(openAlertWindow(&state, source: .button), .send(.delegate(.longPressed)))

        case .buttonLost:
            // The button went with the chip: whatever it was doing, it is not a press any more.
            state.button = .released
            return .cancel(id: CancelID.longPress)

        default:
            return .none
        }
    }
}
