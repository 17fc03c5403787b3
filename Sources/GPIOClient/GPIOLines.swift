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

    public init(
        buttonEvents: AsyncStream<ButtonEvent>,
        setLED: @escaping @Sendable (_ index: Int, _ on: Bool) throws(GPIOError) -> Void,
        shutdown: @escaping @Sendable () -> Void,
        failure: @escaping @Sendable () -> GPIOError? = { nil }
    ) {
        self.buttonEvents = buttonEvents
        self.setLED = setLED
        self.shutdown = shutdown
        self.failure = failure
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
