public import GPIOClient
import CGPIOD
public import Logging
import Synchronization

extension GPIOLines {
    /// Real GPIO through libgpiod (1.x or 2.x, fixed at build time), on the chip and lines of
    /// `config`.
    ///
    /// Requests every LED as an output, initially off, and holds it until `shutdown` (gpio-sim
    /// and many boards revert a released line). Requests the button as an input with both edges
    /// and reads its events on a dedicated thread. Throws, with an actionable message, when the
    /// chip or a line is missing, a line is used by another program, or access is denied.
    public static func libgpiod(_ config: LibgpiodConfiguration, log: Logger) throws(GPIOError) -> GPIOLines {
        let hardware = try LibgpiodHardware(config, directory: ChipDirectory(), log: log)
        return GPIOLines(
            buttonEvents: hardware.buttonEvents,
            setLED: { index, on throws(GPIOError) in try hardware.setLED(index, on) },
            shutdown: { hardware.shutdown() },
            failure: { hardware.failure },
            inputEvents: hardware.inputEvents,
            setBuzzer: { on throws(GPIOError) in try hardware.setBuzzer(on) })
    }
}

/// Everything the live client holds, behind one lock: the chip, the LED requests and the button
/// thread. `shutdown` releases them in reverse order of acquisition.
final class LibgpiodHardware: Sendable {
    let buttonEvents: AsyncStream<ButtonEvent>
    let inputEvents: AsyncStream<InputEvent>
    private let state: Mutex<State>
    private let log: Logger

    private struct State: ~Copyable {
        var chip: GPIOChip?
        var leds: [LineRequest]
        var ledTargets: [String]
        var buzzer: LineRequest?
        var buttonThread: ButtonEventThread?
    }

    init(_ config: LibgpiodConfiguration, directory: ChipDirectory, log: Logger) throws(GPIOError) {
        self.log = log
        let chip = try directory.open(config.chip)
        let buttonOffset = try chip.offset(of: config.button.line)
        let ledOffsets = try config.leds.map { led throws(GPIOError) in try chip.offset(of: led.line) }
        let buzzerOffset = try config.buzzer.map { buzzer throws(GPIOError) in try chip.offset(of: buzzer.line) }
        let inputOffsets = try config.inputs.map { input throws(GPIOError) in try chip.offset(of: input.line) }
        try Self.checkDistinct(button: buttonOffset, leds: ledOffsets + (buzzerOffset.map { [$0] } ?? []) + inputOffsets, chip: chip)

        // Outputs first, each off from the moment of the request: no LED flashes a wrong state.
        var leds: [LineRequest] = []
        for (led, offset) in zip(config.leds, ledOffsets) {
            let settings = lsgpio_line_settings(
                output: true, active_low: led.activeLow, bias: LSGPIO_BIAS_AS_IS, initial_value: 0, debounce_us: 0)
            leds.append(try LineRequest(chip: chip, offset: offset, consumer: config.consumer, settings: settings))
        }
        var buzzer: LineRequest?
        if let wiring = config.buzzer, let offset = buzzerOffset {
            let settings = lsgpio_line_settings(
                output: true, active_low: wiring.activeLow, bias: LSGPIO_BIAS_AS_IS, initial_value: 0, debounce_us: 0)
            buzzer = try LineRequest(chip: chip, offset: offset, consumer: config.consumer, settings: settings)
        }
        // The inputs, each with its level now (told once at the start) and a tracker of its own
        // that never re-reads it on a timer.
        var inputs: [InputWatch] = []
        for (input, offset) in zip(config.inputs, inputOffsets) {
            let inputDebounce = LibgpiodLibrary.hasKernelDebounce ? input.debounce : .zero
            let settings = lsgpio_line_settings(
                output: false, active_low: input.activeLow, bias: LSGPIO_BIAS_AS_IS, initial_value: 0,
                debounce_us: UInt32(clamping: inputDebounce.microseconds))
            let request = try LineRequest(chip: chip, offset: offset, consumer: config.consumer, settings: settings)
            let level = try request.value()
            inputs.append(InputWatch(role: input.role, request: request, tracker: ButtonLineTracker(
                userSpaceDebounce: LibgpiodLibrary.hasKernelDebounce ? .zero : input.debounce, kernelDebounce: inputDebounce,
                heldRecheckInterval: nil, initialLevel: level, at: monotonicNow())))
        }

        let kernelDebounce = LibgpiodLibrary.hasKernelDebounce ? config.button.debounce : .zero
        let buttonSettings = lsgpio_line_settings(
            output: false, active_low: config.button.activeLow, bias: config.button.bias.shimValue,
            initial_value: 0, debounce_us: UInt32(clamping: kernelDebounce.microseconds))
        let button = try LineRequest(chip: chip, offset: buttonOffset, consumer: config.consumer, settings: buttonSettings)
        // A button already held at start-up (or a shorted line) must not count as a press.
        let initialLevel = try button.value()
        let tracker = ButtonLineTracker(
            userSpaceDebounce: LibgpiodLibrary.hasKernelDebounce ? .zero : config.button.debounce,
            kernelDebounce: kernelDebounce, heldRecheckInterval: config.heldRecheckInterval,
            initialLevel: initialLevel, at: monotonicNow())
        let buttonTarget = button.target
        let ledTargets = leds.map(\.target)

        let (stream, continuation) = AsyncStream.makeStream(of: ButtonEvent.self, bufferingPolicy: .unbounded)
        let (inputStream, inputContinuation) = AsyncStream.makeStream(of: InputEvent.self, bufferingPolicy: .unbounded)
        for input in inputs {
            inputContinuation.yield(InputEvent(input.role, active: input.tracker.isPressed, at: monotonicNow()))
        }
        let inputTargets = inputs.map { "\($0.role.rawValue) \($0.request.target)" }
        let thread = try ButtonEventThread(request: ThreadHandover(value: button), tracker: tracker, continuation: continuation,
                                           inputs: ThreadHandover(value: inputs), inputContinuation: inputContinuation, log: log)
        self.buttonEvents = stream
        self.inputEvents = inputStream
        let buzzerTarget = buzzer?.target
        self.state = Mutex(State(chip: chip, leds: leds, ledTargets: ledTargets, buzzer: buzzer, buttonThread: thread))

        log.info("""
            libgpiod \(LibgpiodLibrary.version) (API v\(LibgpiodLibrary.apiMajor)): \
            button \(buttonTarget), \(config.button.activeLow ? "active-low" : "active-high"), \
            bias \(config.button.bias.rawValue), debounce \(config.button.debounce.microseconds / 1000) ms \
            \(LibgpiodLibrary.hasKernelDebounce ? "in the kernel" : "in user space")\(initialLevel ? ", held at start" : ""); \
            LEDs \(ledTargets.joined(separator: ", "))\(buzzerTarget.map { "; buzzer \($0)" } ?? "")\
            \(inputTargets.isEmpty ? "" : "; inputs " + inputTargets.joined(separator: ", "))
            """)
    }

    /// Why the button stream ended on its own, if it did (see `GPIOLines.failure`).
    var failure: GPIOError? {
        state.withLock { $0.buttonThread?.failure }
    }

    func setLED(_ index: Int, _ on: Bool) throws(GPIOError) {
        try state.withLock { state throws(GPIOError) in
            guard state.chip != nil else {
                throw GPIOError(operation: LibgpiodOperation.setLine, target: "LED #\(index)", reason: "GPIO was shut down")
            }
            guard state.leds.indices.contains(index) else {
                throw GPIOError(
                    operation: LibgpiodOperation.setLine, target: "LED #\(index)",
                    reason: "no such LED; \(state.leds.count) configured")
            }
            try state.leds[index].setValue(on)
        }
    }

    func setBuzzer(_ on: Bool) throws(GPIOError) {
        try state.withLock { state throws(GPIOError) in
            guard state.chip != nil else {
                throw GPIOError(operation: LibgpiodOperation.setLine, target: "buzzer", reason: "GPIO was shut down")
            }
            guard let buzzer = state.buzzer else {
                throw GPIOError(operation: LibgpiodOperation.setLine, target: "buzzer", reason: "no [buzzer] line is configured")
            }
            try buzzer.setValue(on)
        }
    }

    /// Stops the button thread (it releases the button and the inputs), switches the LEDs and the
    /// buzzer off, releases them and closes the chip. Safe to call more than once.
    func shutdown() {
        let thread = state.withLock { state in
            let thread = state.buttonThread
            state.buttonThread = nil
            return thread
        }
        thread?.stop()
        state.withLock { state in
            for (led, target) in zip(state.leds, state.ledTargets) {
                do { try led.setValue(false) } catch { log.warning("could not switch off LED \(target): \(error)") }
            }
            state.leds = []
            if let buzzer = state.buzzer {
                do { try buzzer.setValue(false) } catch { log.warning("could not switch off the buzzer \(buzzer.target): \(error)") }
            }
            state.buzzer = nil
            state.chip = nil
        }
    }

    private static func checkDistinct(button: UInt32, leds: [UInt32], chip: GPIOChip) throws(GPIOError) {
        var seen: Set<UInt32> = [button]
        for offset in leds where !seen.insert(offset).inserted {
            throw GPIOError(
                operation: LibgpiodOperation.requestLine, target: chip.describeLine(offset: offset),
                reason: "configured for more than one of button/LEDs/buzzer/inputs",
                hint: "give every LED, the button, the buzzer and each input its own line")
        }
    }
}

extension LineBias {
    var shimValue: lsgpio_bias {
        switch self {
        case .asIs: LSGPIO_BIAS_AS_IS
        case .disabled: LSGPIO_BIAS_DISABLED
        case .pullUp: LSGPIO_BIAS_PULL_UP
        case .pullDown: LSGPIO_BIAS_PULL_DOWN
        }
    }
}

extension Duration {
    var microseconds: Int64 {
        components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000
    }
}
