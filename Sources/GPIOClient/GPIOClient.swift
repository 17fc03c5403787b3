import ComposableCore
import Synchronization

/// The device's GPIO as the device feature uses it: request the lines (and again after the chip
/// came back), light LEDs, and hear when chips come and go.
///
/// Whether to wait, retry or give up is decided by the GPIO feature; this only does the work. The
/// live value (`holding(_:)`) keeps the lines currently held, so `setLED` always writes to them.
public struct GPIOClient: Sendable {
    /// What is waited for when the chip is missing, for messages: "chip 'pinctrl-rp1'".
    public var chipDescription: String
    /// Requests the lines unless they are held already, and returns the debounced button events.
    /// The stream ends when the chip goes away (then `failure` says why) or at `release`.
    public var connect: @Sendable () throws(GPIOError) -> AsyncStream<ButtonEvent>
    /// Why the last button stream ended on its own; nil while it runs or after `release`.
    public var failure: @Sendable () -> GPIOError?
    /// Sets one LED (an index into the configured LED list) on the lines held now; fails, saying
    /// what is awaited, while none are.
    public var setLED: @Sendable (_ index: Int, _ on: Bool) throws(GPIOError) -> Void
    /// Lets the lines go (LEDs off first). Idempotent.
    public var release: @Sendable () -> Void
    /// Starts watching chips appear, change or go away (inotify on /dev); nil when they cannot be
    /// watched, and then the feature retries on a timer instead.
    public var chipChanges: @Sendable () -> ChipWatch?
    /// Whether only a new or changed chip can cure this failure (a missing chip): the feature then
    /// waits for one instead of retrying on a timer.
    public var onlyAChipChangeHelps: @Sendable (GPIOError) -> Bool
    /// The input lines' events of the lines held now (after `connect`); nil when there are none.
    public var inputs: @Sendable () -> AsyncStream<InputEvent>? = { nil }
    /// Switches the buzzer on the lines held now; fails while none are (or without a buzzer).
    public var setBuzzer: @Sendable (_ on: Bool) throws(GPIOError) -> Void = { _ throws(GPIOError) in
        throw GPIOError(operation: "set GPIO line", target: "buzzer", reason: "no [buzzer] line is configured")
    }

    public init(
        chipDescription: String,
        connect: @escaping @Sendable () throws(GPIOError) -> AsyncStream<ButtonEvent>,
        failure: @escaping @Sendable () -> GPIOError?,
        setLED: @escaping @Sendable (_ index: Int, _ on: Bool) throws(GPIOError) -> Void,
        release: @escaping @Sendable () -> Void,
        chipChanges: @escaping @Sendable () -> ChipWatch?,
        onlyAChipChangeHelps: @escaping @Sendable (GPIOError) -> Bool
    ) {
        self.chipDescription = chipDescription
        self.connect = connect
        self.failure = failure
        self.setLED = setLED
        self.release = release
        self.chipChanges = chipChanges
        self.onlyAChipChangeHelps = onlyAChipChangeHelps
    }

    /// Every call is reported as unexpected: tests override what they use.
    public static let failing = GPIOClient(
        chipDescription: "test chip",
        connect: { () throws(GPIOError) in throw .unexpected("GPIOClient.connect") },
        failure: {
            UnexpectedCall.report("GPIOClient.failure")
            return nil
        },
        setLED: { _, _ throws(GPIOError) in throw .unexpected("GPIOClient.setLED") },
        release: { UnexpectedCall.report("GPIOClient.release") },
        chipChanges: {
            UnexpectedCall.report("GPIOClient.chipChanges")
            return nil
        },
        onlyAChipChangeHelps: { _ in
            UnexpectedCall.report("GPIOClient.onlyAChipChangeHelps")
            return false
        }
    )
}

extension GPIOError {
    /// Reports an unexpected call to a test value and returns the error it throws.
    public static func unexpected(_ name: String) -> GPIOError {
        UnexpectedCall.report(name)
        return GPIOError(operation: "call", target: name, reason: "not implemented in this test")
    }
}

/// A running watch for chip changes; `stop()` ends it (and its stream).
public struct ChipWatch: Sendable {
    /// The names of chips that appeared, changed or went away.
    public var changes: AsyncStream<String>
    public var stop: @Sendable () -> Void

    public init(changes: AsyncStream<String>, stop: @escaping @Sendable () -> Void) {
        self.changes = changes
        self.stop = stop
    }
}

/// How a backend reaches its lines, for `GPIOClient.holding(_:)`.
public struct GPIOConnector: Sendable {
    public var chipDescription: String
    /// Opens the chip and requests the lines.
    public var connect: @Sendable () throws(GPIOError) -> GPIOLines
    public var chipChanges: @Sendable () -> ChipWatch?
    public var onlyAChipChangeHelps: @Sendable (GPIOError) -> Bool

    public init(
        chipDescription: String,
        connect: @escaping @Sendable () throws(GPIOError) -> GPIOLines,
        chipChanges: @escaping @Sendable () -> ChipWatch?,
        onlyAChipChangeHelps: @escaping @Sendable (GPIOError) -> Bool
    ) {
        self.chipDescription = chipDescription
        self.connect = connect
        self.chipChanges = chipChanges
        self.onlyAChipChangeHelps = onlyAChipChangeHelps
    }
}

extension GPIOClient {
    /// The client over a backend: keeps the lines it requested (`initial`, when start-up already
    /// requested them) until they are lost or released, and requests them again on `connect`.
    public static func holding(_ connector: GPIOConnector, initial: GPIOLines? = nil) -> GPIOClient {
        let held = Mutex<HeldLines>(HeldLines(lines: initial))
        let chip = connector.chipDescription
        var client = GPIOClient(
            chipDescription: chip,
            connect: { () throws(GPIOError) in
                if let lines = held.withLock({ $0.takeUnconsumed() }) { return lines.buttonEvents }
                // Lines whose stream ended (the chip went away) are let go before asking again.
                let stale = held.withLock { held in
                    defer { held = HeldLines(lines: nil) }
                    return held.lines
                }
                stale?.shutdown()
                let lines = try connector.connect()
                held.withLock { $0 = HeldLines(lines: lines, consumed: true) }
                return lines.buttonEvents
            },
            failure: { held.withLock { $0.lines?.failure() } },
            setLED: { index, on throws(GPIOError) in
                guard let lines = held.withLock({ $0.lines }) else {
                    throw GPIOError(operation: "set GPIO line", target: "LED #\(index)", reason: "waiting for GPIO \(chip)")
                }
                try lines.setLED(index, on)
            },
            release: {
                let lines = held.withLock { held in
                    defer { held = HeldLines(lines: nil) }
                    return held.lines
                }
                lines?.shutdown()
            },
            chipChanges: connector.chipChanges,
            onlyAChipChangeHelps: connector.onlyAChipChangeHelps)
        // The inputs and the buzzer of the lines held now.
        client.inputs = { held.withLock { $0.lines?.inputEvents } }
        client.setBuzzer = { on throws(GPIOError) in
            guard let lines = held.withLock({ $0.lines }) else {
                throw GPIOError(operation: "set GPIO line", target: "buzzer", reason: "waiting for GPIO \(chip)")
            }
            try lines.setBuzzer(on)
        }
        return client
    }
}

/// The lines requested last, and whether their button stream was handed out yet.
private struct HeldLines {
    var lines: GPIOLines?
    var consumed = false

    /// The lines requested at start-up, whose stream nobody has taken yet.
    mutating func takeUnconsumed() -> GPIOLines? {
        guard let lines, !consumed, lines.failure() == nil else { return nil }
        consumed = true
        return lines
    }
}
