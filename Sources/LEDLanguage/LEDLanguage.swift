/// A physical LED: a name the patterns refer to and a colour for people (and the terminal view).
public struct LED: Hashable, Sendable {
    public var name: String
    public var colour: String

    public init(name: String, colour: String) {
        self.name = name
        self.colour = colour
    }
}

/// What every LED does while one indicator is shown. LEDs the pattern does not name stay off.
public struct LEDPattern: Hashable, Sendable {
    public var waveforms: [String: Waveform]

    public init(_ waveforms: [String: Waveform]) {
        self.waveforms = waveforms
    }

    public func waveform(for led: LED) -> Waveform {
        waveforms[led.name] ?? .off
    }
}

/// The device's LED vocabulary: which LEDs exist and which pattern each indicator shows.
/// Data, not code: the config file can change LEDs, colours and every pattern.
public struct LEDLanguage: Hashable, Sendable {
    public var leds: [LED]
    public var patterns: [Indicator: LEDPattern]

    public init(leds: [LED], patterns: [Indicator: LEDPattern]) {
        self.leds = leds
        self.patterns = patterns
    }

    public func pattern(for indicator: Indicator) -> LEDPattern {
        patterns[indicator] ?? LEDPattern([:])
    }

    private static let pingFlash = Waveform.cycle([
        (true, .milliseconds(200)), (false, .milliseconds(200)), (true, .milliseconds(200)), (false, .milliseconds(1400)),
    ])

    /// Three LEDs, green, amber and red, readable from across a room, and by anyone: every
    /// indicator differs from every other by which lights it uses or how they blink, never only by
    /// colour; nothing flashes more than three times a second; urgent indicators blink faster than
    /// those that ask for attention (`LEDLanguageTests.ReadabilityTests`).
    /// The README's LED table documents exactly this (a test keeps the two in step).
    public static let standard = LEDLanguage(
        leds: [LED(name: "green", colour: "green"), LED(name: "amber", colour: "amber"), LED(name: "red", colour: "red")],
        patterns: [
            .starting: LEDPattern([:]),
            .neverCheckedIn: LEDPattern(["amber": .blink(on: .milliseconds(500), off: .milliseconds(1500))]),
            .checkedIn: LEDPattern(["green": .on]),
            .reminder: LEDPattern(["amber": .on]),
            .overdue: LEDPattern(["red": .blink(on: .milliseconds(250), off: .milliseconds(250))]),
            // The grace after the deadline: the reminder's amber stays, red blinks as for overdue.
            .lastChance: LEDPattern(["amber": .on, "red": .blink(on: .milliseconds(250), off: .milliseconds(250))]),
            .fault: LEDPattern([
                "amber": .cycle([(true, .milliseconds(250)), (false, .milliseconds(250))]),
                "red": .cycle([(false, .milliseconds(250)), (true, .milliseconds(250))]),
            ]),
            .acknowledged: LEDPattern(["green": .blink(on: .milliseconds(200), off: .milliseconds(200))]),
            .longPress: LEDPattern(["green": .on, "amber": .on, "red": .on]),
            // A double flash of green and amber together, then a pause: unlike any steady or
            // evenly blinking pattern, it reads from across a room as "someone is asking".
            .pingPending: LEDPattern([
                "green": pingFlash,
                "amber": pingFlash,
            ]),
            // Alerts: all three blinking = "about to call for help, press to stop"; red steady =
            // help asked for (amber ticking while it is not yet acknowledged, green once it is).
            .alertCancelWindow: LEDPattern([
                "green": .blink(on: .milliseconds(250), off: .milliseconds(250)),
                "amber": .blink(on: .milliseconds(250), off: .milliseconds(250)),
                "red": .blink(on: .milliseconds(250), off: .milliseconds(250)),
            ]),
            .alertSending: LEDPattern(["red": .on, "amber": .blink(on: .milliseconds(100), off: .milliseconds(900))]),
            .alertDelivered: LEDPattern(["red": .on, "green": .on]),
            // Not uploaded for too long: the phase's steady LED winks off every 3 s.
            .checkedInNotUploaded: LEDPattern(["green": .blink(on: .milliseconds(2700), off: .milliseconds(300))]),
            .reminderNotUploaded: LEDPattern(["amber": .blink(on: .milliseconds(2700), off: .milliseconds(300))]),
            // Calm: green winks once every 3 s (away), or blinks slowly (on battery, nothing to do).
            .away: LEDPattern(["green": .blink(on: .milliseconds(100), off: .milliseconds(2900))]),
            .onBattery: LEDPattern(["green": .blink(on: .milliseconds(1000), off: .milliseconds(1000))]),
            .identify: identifyPattern(over: ["green", "amber", "red"]),
            // Someone is coming: the red of overdue held steady, green blinking beside it.
            .helpComing: LEDPattern(["red": .on, "green": .blink(on: .milliseconds(500), off: .milliseconds(500))]),
            // A watcher's glance: each status a rhythm of its own, so "mum is overdue" never looks
            // like "I am overdue" on a device that is both. Double flashes are the watcher's.
            .dependentHelpAlert: LEDPattern(["green": .blink(on: .milliseconds(250), off: .milliseconds(250)),
                                             "red": .blink(on: .milliseconds(250), off: .milliseconds(250))]),
            .dependentOverdue: LEDPattern(["red": .cycle([(true, .milliseconds(200)), (false, .milliseconds(200)),
                                                         (true, .milliseconds(200)), (false, .milliseconds(400))])]),
            .dependentSilent: LEDPattern(["red": .blink(on: .milliseconds(100), off: .milliseconds(900))]),
            .dependentReminder: LEDPattern(["amber": .cycle([(true, .milliseconds(200)), (false, .milliseconds(200)),
                                                            (true, .milliseconds(200)), (false, .milliseconds(2400))])]),
            .dependentsUnknown: LEDPattern(["amber": .blink(on: .milliseconds(100), off: .milliseconds(2900))]),
            .dependentsOK: LEDPattern(["green": .cycle([(true, .milliseconds(100)), (false, .milliseconds(200)),
                                                       (true, .milliseconds(100)), (false, .milliseconds(2600))])]),
            .pingConfirm: LEDPattern(["green": .blink(on: .milliseconds(250), off: .milliseconds(250)),
                                      "amber": .blink(on: .milliseconds(250), off: .milliseconds(250))]),
        ]
    )

    /// A light running along the LEDs in order (green → amber → red on the standard board): unlike
    /// any status, and unmistakably "this one". A board with other LEDs gets the same over its own,
    /// so a config written before identify existed still describes every indicator. A single LED
    /// flickers.
    public static func identifyPattern(over leds: [String]) -> LEDPattern {
        let step = Duration.milliseconds(150)
        guard leds.count > 1 else {
            return LEDPattern(Dictionary(uniqueKeysWithValues: leds.map { ($0, Waveform.blink(on: .milliseconds(50), off: .milliseconds(50))) }))
        }
        var waveforms: [String: Waveform] = [:]
        for (index, led) in leds.enumerated() {
            var steps: [(Bool, Duration)] = []
            if index > 0 { steps.append((false, step * index)) }
            steps.append((true, step))
            if index < leds.count - 1 { steps.append((false, step * (leds.count - 1 - index))) }
            waveforms[led] = .cycle(steps)
        }
        return LEDPattern(waveforms)
    }
}
