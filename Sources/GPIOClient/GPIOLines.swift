/// The device's lines while they are held: one push button in, a few LEDs out.
///
/// Backends: `GPIOSimulated` (development, tests, demos) and the libgpiod backend. Both deliver
/// *debounced* button levels: a press is reported once the line has been stable for the debounce
/// period (see `ButtonDebouncer`), so a chattering switch produces one press. `GPIOClient` is what
/// the device uses: it requests lines like these, and requests them again after the chip came back.
public struct GPIOLines: Sendable {
    /// Debounced button changes, in order. Finishes when the client is shut down.
    public var buttonEvents: AsyncStream<ButtonEvent>
    /// Sets one LED (index into the configured LED list).
    public var setLED: @Sendable (_ index: Int, _ on: Bool) throws(GPIOError) -> Void
    /// Releases the lines. LEDs are switched off first.
    public var shutdown: @Sendable () -> Void
    /// Why `buttonEvents` finished, when it finished on its own (the chip was removed, a read
    /// failed) rather than by `shutdown`; nil while it runs or after a shutdown.
    public var failure: @Sendable () -> GPIOError?
    /// The optional inputs (`[power] mains_line`, `low_battery_line`): each one's level once when
    /// the lines are requested, then every debounced change. Finishes with `buttonEvents`.
    public var inputEvents: AsyncStream<InputEvent>
    /// Switches the buzzer (`[buzzer] line`); throws when there is none.
    public var setBuzzer: @Sendable (_ on: Bool) throws(GPIOError) -> Void

    public init(
        buttonEvents: AsyncStream<ButtonEvent>,
        setLED: @escaping @Sendable (_ index: Int, _ on: Bool) throws(GPIOError) -> Void,
        shutdown: @escaping @Sendable () -> Void,
        failure: @escaping @Sendable () -> GPIOError? = { nil },
        inputEvents: AsyncStream<InputEvent> = AsyncStream { $0.finish() },
        setBuzzer: @escaping @Sendable (_ on: Bool) throws(GPIOError) -> Void = { _ throws(GPIOError) in
            throw GPIOError(operation: "set GPIO line", target: "buzzer", reason: "no [buzzer] line is configured")
        }
    ) {
        self.buttonEvents = buttonEvents
        self.setLED = setLED
        self.shutdown = shutdown
        self.failure = failure
        self.inputEvents = inputEvents
        self.setBuzzer = setBuzzer
    }
}

/// An optional input line besides the button.
public enum InputLine: String, Hashable, Sendable, CaseIterable {
    /// Active while the mains power is present (a UPS HAT's power-good output).
    case mains
    /// Active when the battery is about to run out.
    case lowBattery = "low_battery"
}

/// An input's debounced level (true = active), stamped with monotonic time.
public struct InputEvent: Hashable, Sendable {
    public var line: InputLine
    public var active: Bool
    public var at: Duration

    public init(_ line: InputLine, active: Bool, at: Duration) {
        self.line = line
        self.active = active
        self.at = at
    }
}

/// A debounced change of the button, stamped with the monotonic time of the edge that started it.
public struct ButtonEvent: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case pressed
        case released
    }

    public var kind: Kind
    /// Monotonic (CLOCK_MONOTONIC/BOOTTIME) time of the first edge of the stable level.
    public var at: Duration

    public init(_ kind: Kind, at: Duration) {
        self.kind = kind
        self.at = at
    }
}

/// A GPIO failure, carrying the operation, the chip or line, and the system's reason.
public struct GPIOError: Error, Hashable, Sendable, CustomStringConvertible {
    public var operation: String
    public var target: String
    public var reason: String
    public var hint: String?

    public init(operation: String, target: String, reason: String, hint: String? = nil) {
        self.operation = operation
        self.target = target
        self.reason = reason
        self.hint = hint
    }

    public var description: String {
        "\(operation) \(target): \(reason)" + (hint.map { " (\($0))" } ?? "")
    }
}
