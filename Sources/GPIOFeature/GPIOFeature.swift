public import Backoff
import CheckInModels
public import ComposableCore
public import DeviceClock
public import GPIOClient

/// Keeps the GPIO lines held across a chip that is missing at start or goes away while running.
///
/// A daemon that exits when its chip is missing restarts in a loop under systemd and, while it is
/// down, answers nobody. Instead the device stays up, shows the fault, and waits — on chip changes
/// (inotify on /dev), not polling — for the chip, then requests the lines again. Failures a chip
/// change cannot cure (a busy line, no permission), or any failure when chips cannot be watched,
/// are retried on `Backoff.local`.
public struct GPIOFeature: Reducer {
    public var gpio: GPIOClient
    public var clock: DeviceClock
    public var backoff: Backoff

    public init(gpio: GPIOClient, clock: DeviceClock, backoff: Backoff = .local) {
        self.gpio = gpio
        self.clock = clock
        self.backoff = backoff
    }

    public struct State: Equatable, Sendable {
        public enum Connection: Equatable, Sendable {
            /// Not requested yet (before start, after stop).
            case idle
            case connected
            /// Waiting for the chip; the error says what is missing and why.
            case waiting(GPIOError)
        }

        public var connection: Connection = .idle
        /// What status and the log say is awaited: the loss while only the chip's return can help
        /// (it says more than "no such chip"), else the latest failure.
        public var shownFailure: GPIOError?
        public var consecutiveFailures = 0
        /// Chip changes are being watched: a missing chip is waited for without a timer.
        public var isWatchingChips = false
        public var retryScheduled = false
        /// What is waited for, for messages: "chip 'pinctrl-rp1'".
        public var chipDescription: String

        public init(chipDescription: String) {
            self.chipDescription = chipDescription
        }

        /// While waiting: what is awaited and why.
        public var waitingFor: GPIOError? {
            guard case .waiting = connection else { return nil }
            return shownFailure
        }
    }

    public enum Action: Equatable, Sendable {
        case start
        case stop
        /// The lines are held.
        case connected
        case connectFailed(GPIOError)
        /// A debounced edge of the button. The device reduces it where it arrives (no delegate
        /// relays it): every action of a press is work on the main thread before the write.
        case buttonChanged(ButtonEvent)
        /// An optional input's level (when the lines are requested) or a debounced change of it.
        case inputChanged(InputEvent)
        /// The button's event stream ended on its own: the chip went away.
        case eventsEnded(GPIOError)
        case chipWatchStarted
        case chipsChanged
        case retryDue
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            /// The mains or low-battery line's level.
            case input(InputLine, active: Bool)
            /// The lines were lost (or never had): no button, no LEDs.
            case linesLost
            /// The lines are held again: the LEDs must be written afresh.
            case linesRestored
        }
    }

    enum CancelID {
        static let lines = EffectID("gpio-lines")
        static let watch = EffectID("gpio-watch")
        static let retry = EffectID("gpio-retry")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            return .merge(watchChips(), connect())

        case .stop:
            state.connection = .idle
            state.retryScheduled = false
            state.isWatchingChips = false
            return .merge(.cancel(id: CancelID.lines), .cancel(id: CancelID.watch), .cancel(id: CancelID.retry),
                          .run { [gpio] _ in gpio.release() })

        case .connected:
            let wasWaiting = state.connection != .connected && state.connection != .idle
            state.connection = .connected
            state.shownFailure = nil
            state.consecutiveFailures = 0
            state.retryScheduled = false
            return .merge(.cancel(id: CancelID.retry), wasWaiting ? .send(.delegate(.linesRestored)) : .none)

        case let .connectFailed(failure):
            let wasConnected = state.connection == .connected
            let afterLoss = state.connection != .connected && state.shownFailure != nil && !wasConnected
            if !(afterLoss && gpio.onlyAChipChangeHelps(failure)) { state.shownFailure = failure }
            state.connection = .waiting(failure)
            state.consecutiveFailures += 1
            let lost: Effect<Action> = wasConnected ? .send(.delegate(.linesLost)) : .none
            return .merge(lost, waitForRetry(after: failure, &state))

        case .buttonChanged:
            return .none

        case let .inputChanged(event):
            return .send(.delegate(.input(event.line, active: event.active)))

        case let .eventsEnded(failure):
            state.connection = .waiting(failure)
            state.shownFailure = failure
            // Try at once (the chip may be back already), then wait for it.
            return .merge(.send(.delegate(.linesLost)), connect())

        case .chipWatchStarted:
            state.isWatchingChips = true
            return .none

        case .chipsChanged, .retryDue:
            if case .retryDue = action { state.retryScheduled = false }
            guard case .waiting = state.connection else { return .none }
            return connect()

        case .delegate:
            return .none
        }
    }

    /// Requests the lines and forwards their events until they end.
    private func connect() -> Effect<Action> {
        .run { [gpio] send in
            let events: AsyncStream<ButtonEvent>
            do throws(GPIOError) {
                events = try gpio.connect()
            } catch {
                await send(.connectFailed(error))
                return
            }
            await send(.connected)
            // The inputs (mains, low battery) come with the lines and end with them.
            await withTaskGroup(of: Void.self) { group in
                if let inputs = gpio.inputs() {
                    group.addTask { for await event in inputs { await send(.inputChanged(event)) } }
                }
                for await event in events { await send(.buttonChanged(event)) }
                group.cancelAll()
            }
            await send(.eventsEnded(gpio.failure() ?? GPIOError(
                operation: "read GPIO events", target: gpio.chipDescription, reason: "the button's event stream ended")))
        }
        .cancellable(id: CancelID.lines, cancelInFlight: true)
    }

    private func watchChips() -> Effect<Action> {
        .run { [gpio] send in
            guard let watch = gpio.chipChanges() else { return }
            defer { watch.stop() }
            await send(.chipWatchStarted)
            for await _ in watch.changes { await send(.chipsChanged) }
        }
        .cancellable(id: CancelID.watch, cancelInFlight: true)
    }

    /// A missing chip is waited for on chip changes when they are watched; anything else, or any
    /// failure without a watch, is retried on the backoff.
    private func waitForRetry(after failure: GPIOError, _ state: inout State) -> Effect<Action> {
        if state.isWatchingChips, gpio.onlyAChipChangeHelps(failure) { return .none }
        guard !state.retryScheduled else { return .none }
        state.retryScheduled = true
        let delay = backoff.delay(afterFailures: state.consecutiveFailures, random: { $0.lowerBound })
        return .run { [clock] send in
            do {
                try await clock.sleep(delay)
                await send(.retryDue)
            } catch {}  // connected meanwhile, or stopping
        }
        .cancellable(id: CancelID.retry, cancelInFlight: true)
    }
}

extension GPIOFeature {
    /// What is worth logging about the GPIO lines.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        switch action {
        case .eventsEnded(let failure):
            return [LogEntry(.critical, "GPIO \(after.chipDescription) lost, no button and no LEDs until it is back: \(failure)")]
        case .connected where before.connection != .connected && before.connection != .idle:
            return [LogEntry(.notice, "GPIO \(after.chipDescription) is back: lines requested again")]
        case .connectFailed:
            // Once per distinct failure: the same one again, or a missing chip right after the
            // loss, says nothing new.
            guard let shown = after.shownFailure, shown != before.shownFailure else { return [] }
            return [LogEntry(.error, "waiting for GPIO \(after.chipDescription): \(shown)")]
        default:
            return []
        }
    }
}
