public import GPIOClient
import Synchronization

/// A simulated board: one bouncy push button and `ledCount` LEDs, behind the same `GPIOLines` the
/// hardware backend provides. Used for development, demos and tests.
///
/// The button is modelled as a mechanical switch: `press(hold:)` produces raw chatter bursts at the
/// press and at the release (see `ChatterModel`), and the raw edges go through the same
/// `ButtonDebouncer` the hardware backend uses, so what reaches `client.buttonEvents` is exactly what
/// a real switch would produce. All time comes from the injected `monotonicNow` and `sleep`, so
/// tests can drive it with a fake clock.
///
/// The LED side records every output change with its time (`ledChanges(since:)`), keeps the current
/// levels (`ledLevels`) and tells observers (`observeLEDs`), which is what the terminal view draws.
public final class SimulatedGPIO: Sendable {
    public let ledCount: Int
    public let debounce: Duration
    public let chatter: ChatterModel

    private let monotonicNow: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    private let state: Mutex<SimulatorState>

    /// - Parameters:
    ///   - ledCount: how many LEDs the board has; `setLED` refuses other indices.
    ///   - debounce: how long a raw level must stay put before it counts.
    ///   - chatter: how the switch bounces on every press and release.
    ///   - ledHistoryCapacity: how many LED changes `ledChanges(since:)` can return at most.
    ///   - monotonicNow: the monotonic clock button events and LED changes are stamped with.
    ///   - sleep: waits on that same clock; drives the chatter timing and the debounce timers.
    ///   - hasBuzzer: whether the board has a buzzer (`[buzzer] line`).
    ///   - inputs: the optional inputs it has (`[power]`), each with its level at start (the mains
    ///     present, the battery not low).
    public init(
        ledCount: Int,
        debounce: Duration = .milliseconds(20),
        chatter: ChatterModel = .typical,
        ledHistoryCapacity: Int = 4096,
        hasBuzzer: Bool = false,
        inputs: [InputLine] = [],
        monotonicNow: @escaping @Sendable () -> Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void
    ) {
        self.hasBuzzer = hasBuzzer
        precondition(ledCount >= 0, "a board cannot have a negative number of LEDs")
        self.ledCount = ledCount
        self.debounce = debounce
        self.chatter = chatter
        self.monotonicNow = monotonicNow
        self.sleep = sleep
        let levels = Dictionary(uniqueKeysWithValues: inputs.map { ($0, $0 == .mains) })
        state = Mutex(SimulatorState(
            button: ButtonStream(),
            debouncer: ButtonDebouncer(period: debounce),
            ledLevels: Array(repeating: false, count: ledCount),
            ledRecord: LEDChangeRing(capacity: ledHistoryCapacity),
            inputLevels: levels,
            inputs: InputStream(levels: levels, at: monotonicNow())
        ))
    }

    public let hasBuzzer: Bool

    /// The board as the rest of the daemon sees it. Its button stream is this simulator's only
    /// stream: consume it in one place.
    public var client: GPIOLines {
        let (stream, inputs) = state.withLock { ($0.button, $0.inputs) }
        return GPIOLines(
            buttonEvents: stream.events,
            setLED: { index, on throws(GPIOError) in try self.setLED(index, on: on) },
            // Like releasing a request: a no-op for a connection whose chip has gone already.
            shutdown: { [weak self] in
                guard let self, self.state.withLock({ $0.button.id == stream.id && $0.chipFailure == nil }) else { return }
                self.shutdown()
            },
            failure: { [weak self] in self?.state.withLock { $0.button.id == stream.id ? $0.chipFailure : nil } },
            inputEvents: inputs.events,
            setBuzzer: { on throws(GPIOError) in try self.setBuzzer(on: on) }
        )
    }

    // MARK: Buzzer and inputs

    /// Switches the buzzer; throws without one, and while the chip is gone or after shutdown.
    public func setBuzzer(on: Bool) throws(GPIOError) {
        let failure: GPIOError? = state.withLock { state in
            guard hasBuzzer else {
                return GPIOError(operation: "set", target: "simulated buzzer", reason: "the simulated board has no buzzer")
            }
            guard !state.isShutDown, state.chipFailure == nil else {
                return GPIOError(operation: "set", target: "simulated buzzer", reason: "the GPIO lines are not held")
            }
            if on, !state.buzzerOn { state.buzzerOnCount += 1 }
            state.buzzerOn = on
            return nil
        }
        if let failure { throw failure }
    }

    /// Whether the buzzer sounds, and how many times it has been switched on (a beep each).
    public var buzzer: (on: Bool, beeps: Int) { state.withLock { ($0.buzzerOn, $0.buzzerOnCount) } }

    /// Sets an input as a UPS HAT would (true = active: mains present, battery low). False when
    /// the board has no such input.
    @discardableResult
    public func setInput(_ line: InputLine, active: Bool) -> Bool {
        let now = monotonicNow()
        return state.withLock { state in
            guard let level = state.inputLevels[line] else { return false }
            guard level != active else { return true }
            state.inputLevels[line] = active
            if state.chipFailure == nil, !state.isShutDown { state.inputs.continuation.yield(InputEvent(line, active: active, at: now)) }
            return true
        }
    }

    /// Each input's level.
    public var inputLevels: [InputLine: Bool] { state.withLock { $0.inputLevels } }

    // MARK: Button

    /// Presses the button, holds it and lets go, with chatter at both ends, in real (injected) time.
    ///
    /// `hold` is the time from the last bounce of the press to the last bounce of the release,
    /// which is what the debounced events will show (at least `chatter.span`). The release starts
    /// bouncing `chatter.span` before that, so a hold shorter than `debounce + chatter.span` never
    /// stays stable for the debounce period: it is a glitch and produces no events.
    ///
    /// Returns false, doing nothing, if another press is still running (a button cannot be pressed
    /// twice at once) or the simulator is shut down. If the calling task is cancelled mid-press,
    /// the button is let go at once.
    @discardableResult
    public func press(hold: Duration) async -> Bool {
        guard state.withLock({ $0.beginPress() }) else { return false }
        defer { state.withLock { $0.pressInProgress = false } }

        let start = monotonicNow()
        let pressEdges = chatter.burst(to: true).map { RawEdge(level: $0.level, at: start + $0.offset) }
        let pressSettled = start + chatter.span
        let releaseStart = pressSettled + max(.zero, hold - chatter.span)
        let releaseEdges = chatter.burst(to: false).map { RawEdge(level: $0.level, at: releaseStart + $0.offset) }

        do {
            for edge in pressEdges + releaseEdges {
                try await settleTimers(dueBy: edge.at)
                try await sleep(until: edge.at)
                guard feed(edge) else { return true }
            }
            try await settleTimers(dueBy: nil)
        } catch {
            // Cancelled: the finger leaves the button now; a settle timer reports the release (or
            // drops a press that had not settled yet).
            inject(level: false, at: monotonicNow())
        }
        return true
    }

    /// Feeds one raw edge, as if the line changed at `time` (monotonic). If it starts a new
    /// candidate level, a settle timer (on the injected `sleep`) reports it after the debounce
    /// period unless another edge comes first. For tests and for backends built on this one.
    public func inject(level: Bool, at time: Duration) {
        state.withLock { state in
            guard !state.isShutDown, state.chipFailure == nil else { return }
            guard let deadline = state.feed(RawEdge(level: level, at: time)) else { return }
            let generation = state.edgeGeneration
            state.settleTimer = Task {
                do {
                    try await self.sleep(until: deadline)
                } catch {
                    return  // cancelled by a newer edge or by shutdown
                }
                self.settleTimerFired(generation: generation, at: deadline)
            }
        }
    }

    /// The raw (undebounced) level of the line: true while the contacts touch.
    public var rawLevel: Bool { state.withLock { $0.rawLevel } }

    /// The last level reported on `client.buttonEvents`.
    public var debouncedLevel: Bool { state.withLock { $0.debouncer.stableLevel } }

    /// True while `press(hold:)` is running.
    public var isPressing: Bool { state.withLock { $0.pressInProgress } }

    private func feed(_ edge: RawEdge) -> Bool {
        state.withLock { state in
            guard !state.isShutDown, state.chipFailure == nil else { return false }
            _ = state.feed(edge)
            return true
        }
    }

    /// Settles the debouncer at each of its deadlines up to `limit` (all of them if nil), waiting
    /// for each. A deadline equal to the next edge's time settles first: the level has then been
    /// stable for the full period.
    private func settleTimers(dueBy limit: Duration?) async throws {
        while let deadline = state.withLock({ $0.isShutDown ? nil : $0.debouncer.settleDeadline }),
              limit.map({ deadline <= $0 }) ?? true {
            try await sleep(until: deadline)
            state.withLock { state in
                if let event = state.debouncer.settle(at: deadline) { state.button.continuation.yield(event) }
            }
        }
    }

    private func settleTimerFired(generation: UInt64, at deadline: Duration) {
        state.withLock { state in
            // A newer edge owns the debouncer now; its own timer will settle it.
            guard state.edgeGeneration == generation, !state.isShutDown else { return }
            state.settleTimer = nil
            if let event = state.debouncer.settle(at: deadline) { state.button.continuation.yield(event) }
        }
    }

    private func sleep(until time: Duration) async throws {
        let now = monotonicNow()
        if time > now { try await sleep(time - now) }
        try Task.checkCancellation()
    }

    // MARK: LEDs

    /// Switches one LED. Throws for an index the board does not have, and after shutdown (the
    /// lines are released then, as on hardware).
    public func setLED(_ index: Int, on: Bool) throws(GPIOError) {
        let now = monotonicNow()
        let failure: GPIOError? = state.withLock { state in
            guard !state.isShutDown else {
                return GPIOError(operation: "set", target: "simulated LED \(index)",
                                 reason: "the GPIO lines have been released (shut down)")
            }
            if let failure = state.chipFailure {
                return GPIOError(operation: "set", target: "simulated LED \(index)", reason: failure.reason)
            }
            guard state.ledLevels.indices.contains(index) else {
                return GPIOError(operation: "set", target: "simulated LED \(index)",
                                 reason: "no such LED: the simulated board has \(state.ledLevels.count)",
                                 hint: "check the LED list in the configuration")
            }
            state.setLED(index, on: on, at: now)
            return nil
        }
        if let failure { throw failure }
    }

    /// Every LED's current level, by index.
    public var ledLevels: [Bool] { state.withLock { $0.ledLevels } }

    /// The recorded LED changes at or after `time` (monotonic), oldest first. Only the most recent
    /// `ledHistoryCapacity` changes are kept; `LEDChange.sequence` shows gaps.
    public func ledChanges(since time: Duration = .zero) -> [LEDChange] {
        state.withLock { $0.ledRecord.inOrder }.filter { $0.at >= time }
    }

    /// Calls `observer` with every LED change and the levels after it, in order, until the
    /// returned observation is cancelled or the simulator shuts down.
    ///
    /// The observer runs while the simulator's lock is held, so changes arrive in order: it must
    /// be quick (store and signal, don't write to a terminal) and must not call back into the
    /// simulator.
    public func observeLEDs(
        _ observer: @escaping @Sendable (_ change: LEDChange, _ levels: [Bool]) -> Void
    ) -> LEDObservation {
        let id = state.withLock { state in
            state.nextObserverID += 1
            state.ledObservers[state.nextObserverID] = observer
            return state.nextObserverID
        }
        return LEDObservation { [weak self] in
            _ = self?.state.withLock { $0.ledObservers.removeValue(forKey: id) }
        }
    }

    // MARK: The chip coming and going

    /// Takes the chip away, as unloading its driver or unplugging a GPIO expander does: the
    /// button stream finishes with `client.failure` saying why, the LEDs go dark (released lines
    /// revert), `setLED` and `connect()` fail until `restoreChip()`.
    public func removeChip() {
        let now = monotonicNow()
        state.withLock { state in
            guard !state.isShutDown, state.chipFailure == nil else { return }
            state.chipFailure = GPIOError(
                operation: "read", target: "simulated GPIO chip", reason: "the chip was removed")
            state.settleTimer?.cancel()
            state.settleTimer = nil
            state.edgeGeneration &+= 1
            state.rawLevel = false
            state.debouncer = ButtonDebouncer(period: debounce)
            for index in state.ledLevels.indices where state.ledLevels[index] {
                state.setLED(index, on: false, at: now)
            }
            state.buzzerOn = false
            state.button.continuation.finish()
            state.inputs.continuation.finish()
            for watcher in state.chipWatchers.values { watcher.yield(Self.chipName) }
        }
    }

    /// Brings the chip back; `connect()` then returns a client with a fresh button stream.
    public func restoreChip() {
        state.withLock { state in
            guard !state.isShutDown, state.chipFailure != nil else { return }
            state.chipFailure = nil
            state.button = ButtonStream()
            state.inputs = InputStream(levels: state.inputLevels, at: monotonicNow())
            for watcher in state.chipWatchers.values { watcher.yield(Self.chipName) }
        }
    }

    /// The name `watchChip()` reports changes under.
    public static let chipName = "gpiochip-simulated"

    /// True between `removeChip()` and `restoreChip()`.
    public var isChipRemoved: Bool { state.withLock { $0.chipFailure != nil } }

    /// Opens the board like a hardware backend opens its chip: fails while the chip is removed.
    public func connect() throws(GPIOError) -> GPIOLines {
        let removed = state.withLock { $0.chipFailure != nil || $0.isShutDown }
        guard !removed else {
            throw GPIOError(operation: "open", target: "simulated GPIO chip", reason: "no such chip (removed)")
        }
        return client
    }

    /// Yields the chip's name whenever it is removed or restored, like inotify on /dev; finishes
    /// at shutdown or when `stop` is called.
    public func watchChip() -> (changes: AsyncStream<String>, stop: @Sendable () -> Void) {
        let (changes, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state in
            state.nextObserverID += 1
            if state.isShutDown { continuation.finish() } else { state.chipWatchers[state.nextObserverID] = continuation }
            return state.nextObserverID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.chipWatchers.removeValue(forKey: id) }
        }
        return (changes, { continuation.finish() })
    }

    // MARK: Lifetime

    /// Switches every LED off (recorded like any change), stops the debounce timers and finishes
    /// the button stream. Idempotent.
    public func shutdown() {
        let now = monotonicNow()
        state.withLock { state in
            guard !state.isShutDown else { return }
            for index in state.ledLevels.indices where state.ledLevels[index] {
                state.setLED(index, on: false, at: now)
            }
            state.isShutDown = true
            state.settleTimer?.cancel()
            state.settleTimer = nil
            state.ledObservers.removeAll()
            state.buzzerOn = false
            state.button.continuation.finish()
            state.inputs.continuation.finish()
            for watcher in state.chipWatchers.values { watcher.finish() }
            state.chipWatchers.removeAll()
        }
    }

    public var isShutDown: Bool { state.withLock { $0.isShutDown } }

    deinit {
        state.withLock {
            $0.button.continuation.finish()
            $0.inputs.continuation.finish()
        }
    }
}

/// Keeps an LED observer registered; `cancel()` (idempotent) unregisters it.
public final class LEDObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    public func cancel() {
        onCancel()
    }
}

struct RawEdge {
    var level: Bool
    var at: Duration
}
