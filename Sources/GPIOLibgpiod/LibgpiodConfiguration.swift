public import GPIOClient

/// Which lines of which chip the device uses, as read from the daemon's `[gpio]`, `[button]` and
/// `[leds.*]` configuration.
public struct LibgpiodConfiguration: Hashable, Sendable {
    public var chip: ChipSelector
    public var button: Button
    /// In the order of the LED indices `GPIOLines.setLED` takes.
    public var leds: [LED]
    /// An active buzzer, switched like an LED (`[buzzer] line`).
    public var buzzer: LED?
    /// The optional inputs (`[power]`), each read with both edges.
    public var inputs: [Input]
    /// Shown by `gpioinfo` next to every line the daemon holds.
    public var consumer: String
    /// While the button is held, how often its level is read again, so a lost release edge cannot
    /// leave it "held" for ever. Costs wake-ups only while the button is down.
    public var heldRecheckInterval: Duration

    public init(
        chip: ChipSelector,
        button: Button,
        leds: [LED],
        buzzer: LED? = nil,
        inputs: [Input] = [],
        consumer: String = "lifesignald",
        heldRecheckInterval: Duration = .milliseconds(500)
    ) {
        self.chip = chip
        self.button = button
        self.leds = leds
        self.buzzer = buzzer
        self.inputs = inputs
        self.consumer = consumer
        self.heldRecheckInterval = heldRecheckInterval
    }

    public struct Button: Hashable, Sendable {
        public var line: LineSelector
        /// True for the usual wiring: switch to ground, line pulled up, pressed reads low.
        public var activeLow: Bool
        public var bias: LineBias
        /// A level counts once it has been stable this long (kernel debounce with libgpiod 2.x,
        /// `ButtonDebouncer` in user space with 1.x).
        public var debounce: Duration

        public init(line: LineSelector, activeLow: Bool = true, bias: LineBias = .pullUp, debounce: Duration = .milliseconds(30)) {
            self.line = line
            self.activeLow = activeLow
            self.bias = bias
            self.debounce = debounce
        }
    }

    /// An input line besides the button (a UPS HAT's mains-present or low-battery output).
    public struct Input: Hashable, Sendable {
        public var role: InputLine
        public var line: LineSelector
        /// True when the line reads low while its condition holds (mains present, battery low).
        public var activeLow: Bool
        /// A level counts once stable this long (a relay or a supply rail can chatter).
        public var debounce: Duration

        public init(role: InputLine, line: LineSelector, activeLow: Bool = false, debounce: Duration = .milliseconds(100)) {
            self.role = role
            self.line = line
            self.activeLow = activeLow
            self.debounce = debounce
        }
    }

    public struct LED: Hashable, Sendable {
        public var line: LineSelector
        /// True when the LED lights with the line low (LED wired from the supply to the pin).
        public var activeLow: Bool

        public init(line: LineSelector, activeLow: Bool = false) {
            self.line = line
            self.activeLow = activeLow
        }
    }
}

/// A GPIO chip, by device path, by kernel name, or by label.
///
/// Chip numbers are not stable (a Raspberry Pi 5's header moved from `gpiochip4` to `gpiochip0`
/// between kernels), so prefer the label (`pinctrl-rp1`, `pinctrl-bcm2711`) or line names.
public enum ChipSelector: Hashable, Sendable, CustomStringConvertible {
    /// A character device, e.g. `/dev/gpiochip0`.
    case path(String)
    /// The kernel's name, e.g. `gpiochip0`.
    case name(String)
    /// The driver's label, e.g. `pinctrl-rp1`.
    case label(String)
    /// A name or a label, whichever matches (what a configuration file's `chip = "..."` means
    /// unless it is a path).
    case nameOrLabel(String)

    /// Reads the configuration file's form: anything with a `/` is a path.
    public init(parsing text: String) {
        self = text.contains("/") ? .path(text) : .nameOrLabel(text)
    }

    public var description: String {
        switch self {
        case .path(let path): path
        case .name(let name): "chip named '\(name)'"
        case .label(let label): "chip labelled '\(label)'"
        case .nameOrLabel(let text): "chip '\(text)'"
        }
    }
}

/// A line of a chip, by offset or by the name the board's device tree gives it (`GPIO17`).
public enum LineSelector: Hashable, Sendable, CustomStringConvertible {
    case offset(UInt32)
    case name(String)

    /// Reads the configuration file's form: digits only is an offset, anything else a name.
    public init(parsing text: String) {
        if !text.isEmpty, text.allSatisfy(\.isASCIIDigit), let offset = UInt32(text) {
            self = .offset(offset)
        } else {
            self = .name(text)
        }
    }

    public var description: String {
        switch self {
        case .offset(let offset): "line \(offset)"
        case .name(let name): "line '\(name)'"
        }
    }
}

/// The pull resistor (or none) the kernel configures for an input.
public enum LineBias: String, Hashable, Sendable, CaseIterable {
    /// Leave whatever the firmware or device tree set.
    case asIs = "as-is"
    case disabled
    case pullUp = "pull-up"
    case pullDown = "pull-down"
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
