public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import GPIOClient

/// The device's press and nothing else: a release checks in through the store client, and the
/// acknowledgement shows for a while once the store has answered. It is the floor the daemon's
/// latency is compared with (`lifesignal-press-floor` in the HIL guest, `lifesignal-bench`'s
/// presses on this machine): what any device built this way pays for a press (a reducer on the
/// project's store, an effect through the store client and back), whatever its features.
public struct PressFloorFeature: Reducer {
    public struct State: Equatable, Sendable {
        /// What the acknowledgement LED shows (an observer sets the LED from it).
        public var acknowledging = false
        public var stored = 0
        /// The store's last refusal; a check-in was not kept.
        public var failure: StoreFailure?

        public init() {}
    }

    public enum Action: Equatable, Sendable {
        case button(ButtonEvent)
        case stored(Result<CheckInRecord, StoreFailure>)
        case acknowledgementEnded
    }

    /// How long the acknowledgement shows (the daemon's is configured the same in the comparisons).
    public static let acknowledgement = Duration.milliseconds(200)
    static let acknowledgementID = EffectID("press-floor.acknowledgement")

    let record: @Sendable (NewCheckIn) async throws(StoreFailure) -> CheckInRecord
    let clock: DeviceClock
    let makeID: @Sendable () -> CheckInID

    public init(record: @escaping @Sendable (NewCheckIn) async throws(StoreFailure) -> CheckInRecord, clock: DeviceClock,
                makeID: @escaping @Sendable () -> CheckInID = { .random() }) {
        self.record = record
        self.clock = clock
        self.makeID = makeID
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case let .button(event):
            // A short press checks in when it ends, as the daemon's does.
            guard event.kind == .released else { return .none }
            let new = NewCheckIn(id: makeID(), at: clock.now(), source: .button)
            return .run { [record] send in
                await send(.stored(await Result { () async throws(StoreFailure) in try await record(new) }))
            }
        case .stored(.success):
            state.stored += 1
            state.acknowledging = true
            state.failure = nil
            return .run { [clock] send in
                do {
                    try await clock.sleep(Self.acknowledgement)
                    await send(.acknowledgementEnded)
                } catch {}  // cancelled by a newer acknowledgement, which ends it in its turn
            }.cancellable(id: Self.acknowledgementID, cancelInFlight: true)
        case let .stored(.failure(failure)):
            state.failure = failure
            return .none
        case .acknowledgementEnded:
            state.acknowledging = false
            return .none
        }
    }
}

extension PressFloorFeature {
    /// The floor running: its store, with an observer that sets the acknowledgement LED from the
    /// state as the daemon's LED driver does (only when it changes, before the action's effects start).
    @MainActor
    public static func running(
        record: @escaping @Sendable (NewCheckIn) async throws(StoreFailure) -> CheckInRecord, clock: DeviceClock,
        setLED: @escaping (Bool) -> Void
    ) -> Store<PressFloorFeature> {
        let store = Store(initialState: State(), reducer: PressFloorFeature(record: record, clock: clock))
        var lit = false
        store.observe { state, _ in
            guard state.acknowledging != lit else { return }
            lit = state.acknowledging
            setLED(lit)
        }
        return store
    }
}
