public import CheckInModels
public import LEDLanguage

/// `[buzzer]`: an active buzzer switched like an LED, and what it plays for each signal.
public struct BuzzerConfiguration: Hashable, Sendable {
    public var line: GPIOLine
    /// True when the buzzer sounds with the line low.
    public var activeLow: Bool
    /// Each signal's pattern (`off` silences it).
    public var patterns: [BuzzerSignal: Waveform]

    public init(line: GPIOLine, activeLow: Bool = false, patterns: [BuzzerSignal: Waveform] = BuzzerConfiguration.standardPatterns) {
        self.line = line
        self.activeLow = activeLow
        self.patterns = patterns
    }

    /// The standard beeps. The last chance beeps every 30 s, as telecare units' spoken warning
    /// repeats; the reminder twice every 15 minutes; a ping twice every 5 minutes while it waits;
    /// a help alert's cancel window four times a second (urgent, and only for a few seconds).
    public static let standardPatterns: [BuzzerSignal: Waveform] = [
        .lastChance: .cycle([(true, .milliseconds(500)), (false, .milliseconds(29_500))]),
        .reminder: .cycle([(true, .milliseconds(150)), (false, .milliseconds(150)), (true, .milliseconds(150)),
                           (false, .milliseconds(899_550))]),
        .ping: .cycle([(true, .milliseconds(200)), (false, .milliseconds(200)), (true, .milliseconds(200)),
                       (false, .milliseconds(299_400))]),
        .alertCancelWindow: .blink(on: .milliseconds(125), off: .milliseconds(125)),
    ]

    public func pattern(for signal: BuzzerSignal) -> Waveform {
        patterns[signal] ?? .off
    }
}

/// `[power]`: the inputs a UPS HAT provides, each optional.
public struct PowerConfiguration: Hashable, Sendable {
    /// Active while the mains power is present.
    public var mainsLine: GPIOLine?
    public var mainsActiveLow: Bool
    /// Active when the battery is about to run out.
    public var lowBatteryLine: GPIOLine?
    public var lowBatteryActiveLow: Bool

    public init(mainsLine: GPIOLine? = nil, mainsActiveLow: Bool = false, lowBatteryLine: GPIOLine? = nil,
                lowBatteryActiveLow: Bool = false) {
        self.mainsLine = mainsLine
        self.mainsActiveLow = mainsActiveLow
        self.lowBatteryLine = lowBatteryLine
        self.lowBatteryActiveLow = lowBatteryActiveLow
    }
}
