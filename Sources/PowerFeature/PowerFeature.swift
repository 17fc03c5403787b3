public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock

/// The device's power and its own restarts: the mains-present line (`[power] mains_line`, as a UPS
/// HAT provides) going and coming back, the low-battery line (`low_battery_line`) asking for a
/// clean stop, and a previous run that ended without one. Each is an event, stored durably before
/// anything is said about it and then sent to every target (the parent routes `eventStored`).
///
/// Whether the previous run stopped cleanly is a mark in the store: set at start, cleared at a
/// clean stop (SIGTERM, a low battery). A mark still set at the next start is an unexpected restart
/// (a power cut without a battery, a crash, SIGKILL).
public struct PowerFeature: Reducer {
    public var store: PowerEventStoreClient
    public var clock: DeviceClock
    public var newID: @Sendable () -> CheckInID
    /// After a low battery is stored: a moment for the event to go out before the daemon stops.
    public var lowBatteryStopDelay: Duration

    public init(store: PowerEventStoreClient, clock: DeviceClock, newID: @escaping @Sendable () -> CheckInID,
                lowBatteryStopDelay: Duration = .seconds(10)) {
        self.store = store
        self.clock = clock
        self.newID = newID
        self.lowBatteryStopDelay = lowBatteryStopDelay
    }

    public struct State: Equatable, Sendable {
        /// `[power] mains_line` is configured.
        public var watchesMains: Bool
        /// `[power] low_battery_line` is configured.
        public var watchesLowBattery: Bool
        /// The mains line as last read: nil until the lines are held (or without the line).
        public var mainsPresent: Bool?
        /// Since when the device runs on battery (this run).
        public var onBatterySince: WallTime?
        public var lowBattery = false
        /// Events not stored yet, oldest first: kept until a write succeeds.
        public var unsaved: [PowerEvent] = []
        public var isStoring = false
        /// The events of this run, newest last (at most `recentLimit`).
        public var recent: [PowerEvent] = []
        public var isRunning = false
        /// The store holds this run's mark (set at start).
        public var runMarked = false
        /// The low battery asked for a clean stop.
        public var isStopping = false

        public static let recentLimit = 10

        public init(watchesMains: Bool = false, watchesLowBattery: Bool = false) {
            self.watchesMains = watchesMains
            self.watchesLowBattery = watchesLowBattery
        }

        /// The mains line says the power is off.
        public var onBattery: Bool { mainsPresent == false }
    }

    public enum Action: Equatable, Sendable {
        /// The daemon started: mark the run, and learn how the previous one ended.
        case start
        case runMarked(Result<PreviousRun?, StoreFailure>)
        /// The mains or low-battery line's level (when the lines are requested, then on each change).
        case mainsChanged(present: Bool)
        case lowBatteryChanged(low: Bool)
        case eventStored(Result<PowerEvent, StoreFailure>)
        /// The store writes again: events that waited are stored now.
        case storeWritable
        /// The low battery's event had its moment to go out: stop.
        case lowBatteryStopDue
        /// The daemon is stopping cleanly: clear the run's mark.
        case stopping
        /// The clean-stop mark is written (nil), or why not.
        case runUnmarked(StoreFailure?)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// Stored: send it to every target.
            case eventStored(PowerEvent)
            case storeFailed(StoreFailure)
            /// The battery is about to run out: stop the daemon cleanly (checkpoint, close).
            case stopRequested
        }
    }

    public enum CancelID {
        /// The write of the clean-stop mark: a stopping daemon waits for it.
        public static let runMark = EffectID("power-run-mark")
        static let lowBatteryStop = EffectID("power-low-battery-stop")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            state.isRunning = true
            let now = clock.now()
            return .run { [store] send in
                await send(.runMarked(await Result { () async throws(StoreFailure) in try await store.markRunStarted(now) }))
            }

        case let .runMarked(.success(previous)):
            state.runMarked = true
            guard let previous, !previous.stoppedCleanly else { return .none }
            let started = previous.startedAt
            let detail = "the run started \(started.wall.iso8601)\(started.wallClockSynchronized ? "" : " (clock not synchronised)") "
                + "did not stop cleanly: a power cut without a battery, a crash or a kill"
            return add(.unexpectedRestart, detail: detail, &state)

        case let .runMarked(.failure(failure)):
            return .send(.delegate(.storeFailed(failure)))

        case let .mainsChanged(present):
            guard state.watchesMains, state.mainsPresent != present else { return .none }
            let first = state.mainsPresent == nil
            state.mainsPresent = present
            if present {
                let since = state.onBatterySince
                state.onBatterySince = nil
                // Mains at start is the normal case: nothing to tell.
                if first { return .none }
                let detail = since.map { "on battery since \($0.iso8601)" } ?? ""
                return add(.powerRestored, detail: detail, &state)
            }
            state.onBatterySince = clock.now().wall
            return add(.onBattery, detail: first ? "the mains power was off when the device started" : "the mains power is off", &state)

        case let .lowBatteryChanged(low):
            guard state.watchesLowBattery, low != state.lowBattery else { return .none }
            state.lowBattery = low
            guard low, !state.isStopping else { return .none }
            state.isStopping = true
            return add(.lowBattery, detail: "", &state)

        case let .eventStored(.success(event)):
            state.isStoring = false
            state.unsaved.removeAll { $0.id == event.id }
            state.recent.append(event)
            if state.recent.count > State.recentLimit { state.recent.removeFirst(state.recent.count - State.recentLimit) }
            var effects: [Effect<Action>] = [.send(.delegate(.eventStored(event))), storeNext(&state)]
            if event.kind == .lowBattery {
                effects.append(.run { [clock, delay = lowBatteryStopDelay] send in
                    do {
                        try await clock.sleep(delay)
                        await send(.lowBatteryStopDue)
                    } catch {}  // stopping anyway
                }
                .cancellable(id: CancelID.lowBatteryStop, cancelInFlight: true))
            }
            return .merge(effects)

        case let .eventStored(.failure(failure)):
            state.isStoring = false
            // A low battery stops the daemon even when its event could not be stored: the stop
            // itself keeps the check-ins (a checkpoint), which matters more.
            let stop: Effect<Action> = state.unsaved.first?.kind == .lowBattery ? .send(.lowBatteryStopDue) : .none
            return .merge(.send(.delegate(.storeFailed(failure))), stop)

        case .storeWritable:
            return storeNext(&state)

        case .lowBatteryStopDue:
            return .send(.delegate(.stopRequested))

        case .stopping:
            state.isRunning = false
            guard state.runMarked else { return .cancel(id: CancelID.lowBatteryStop) }
            return .merge(
                .cancel(id: CancelID.lowBatteryStop),
                .run { [store] send in
                    do throws(StoreFailure) {
                        try await store.markRunStopped()
                        await send(.runUnmarked(nil))
                    } catch {
                        await send(.runUnmarked(error))
                    }
                }
                .cancellable(id: CancelID.runMark))

        case let .runUnmarked(failure):
            guard let failure else {
                state.runMarked = false
                return .none
            }
            return .send(.delegate(.storeFailed(failure)))

        case .delegate:
            return .none
        }
    }

    /// A new event: kept until stored, stored in order.
    private func add(_ kind: PowerEventKind, detail: String, _ state: inout State) -> Effect<Action> {
        state.unsaved.append(PowerEvent(id: newID(), at: clock.now(), kind: kind, detail: detail))
        return storeNext(&state)
    }

    private func storeNext(_ state: inout State) -> Effect<Action> {
        guard !state.isStoring, let next = state.unsaved.first else { return .none }
        state.isStoring = true
        return .run { [store] send in
            await send(.eventStored(await Result { () async throws(StoreFailure) in try await store.record(next) }))
        }
    }

    /// What is worth logging.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        switch action {
        case let .delegate(.eventStored(event)):
            let level: LogEntry.Level = event.kind == .powerRestored ? .notice : .warning
            return [LogEntry(level, event.summary, metadata: ["event": event.kind.rawValue, "id": "\(event.id)"])]
        case .delegate(.stopRequested):
            return [LogEntry(.critical, "the battery is low: stopping cleanly (the check-ins are kept)")]
        case let .delegate(.storeFailed(failure)):
            return [LogEntry(.error, "a power event or the run's mark could not be stored: \(failure.message)")]
        default:
            return []
        }
    }
}
