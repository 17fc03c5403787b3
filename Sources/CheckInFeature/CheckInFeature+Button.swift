import ComposableCore

extension CheckInFeature {
    /// Short press (released before the long-press time) = check-in; long press = its own gesture,
    /// and its release is never also a check-in.
    func reduceButton(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .buttonPressed:
            guard state.button == .released else { return .none }
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
            return .merge(.cancel(id: CancelID.longPress), .send(.checkInRequested(.button)))

        case .longPressThresholdReached:
            guard state.button == .held else { return .none }
            state.button = .longPressed
            state.feedback = .longPress
            return .merge(showFeedback(for: state.acknowledgementDuration), .send(.delegate(.longPressed)))

        case let .gpioLost(message):
            state.error = DeviceError(.gpioUnavailable, message)
            // The button went with the chip: whatever it was doing, it is not a press any more.
            state.button = .released
            return .cancel(id: CancelID.longPress)

        case .gpioRestored:
            if state.error?.kind == .gpioUnavailable { state.error = nil }
            return .none

        default:
            return .none
        }
    }
}
