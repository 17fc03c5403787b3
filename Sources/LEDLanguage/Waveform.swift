/// One LED's behaviour within a pattern: steady, or a repeating cycle of on/off steps.
///
/// Text form (config files, docs): `on`, `off`, or steps like `500ms on, 1500ms off`.
public struct Waveform: Hashable, Sendable, CustomStringConvertible {
    public struct Step: Hashable, Sendable {
        public var on: Bool
        public var duration: Duration
        public init(on: Bool, duration: Duration) {
            self.on = on
            self.duration = duration
        }
    }

    /// Empty means steady at `steadyLevel`.
    public var steps: [Step]
    public var steadyLevel: Bool

    public static let on = Waveform(steps: [], steadyLevel: true)
    public static let off = Waveform(steps: [], steadyLevel: false)

    public static func cycle(_ steps: [(Bool, Duration)]) -> Waveform {
        Waveform(steps: steps.map { Step(on: $0.0, duration: $0.1) }, steadyLevel: false)
    }

    public static func blink(on: Duration, off: Duration) -> Waveform {
        cycle([(true, on), (false, off)])
    }

    init(steps: [Step], steadyLevel: Bool) {
        // A cycle whose steps all share one level is steady: normalise so it costs no wake-ups.
        if let first = steps.first, steps.allSatisfy({ $0.on == first.on }) {
            self.steps = []
            self.steadyLevel = first.on
        } else {
            self.steps = steps
            self.steadyLevel = steadyLevel
        }
    }

    public var isSteady: Bool { steps.isEmpty }

    var cycleLength: Duration {
        steps.reduce(.zero) { $0 + $1.duration }
    }

    /// The level `elapsed` after the pattern started.
    public func level(at elapsed: Duration) -> Bool {
        guard !steps.isEmpty else { return steadyLevel }
        var position = elapsed.positiveRemainder(dividingBy: cycleLength)
        for step in steps {
            if position < step.duration { return step.on }
            position -= step.duration
        }
        return steps[steps.count - 1].on
    }

    /// The first time after `elapsed` at which the level changes, or nil if it never does.
    public func nextChange(after elapsed: Duration) -> Duration? {
        guard !steps.isEmpty else { return nil }
        let current = level(at: elapsed)
        let cycleStart = elapsed - elapsed.positiveRemainder(dividingBy: cycleLength)
        var boundary = cycleStart
        // Two cycles always contain a change, because a non-steady cycle has both levels.
        for step in steps + steps {
            boundary += step.duration
            if boundary > elapsed, level(at: boundary) != current { return boundary }
        }
        return nil
    }

    public var description: String {
        guard !steps.isEmpty else { return steadyLevel ? "on" : "off" }
        return steps.map { "\(formatMilliseconds($0.duration)) \($0.on ? "on" : "off")" }.joined(separator: ", ")
    }

    /// Parses the text form; the error says what was expected.
    public static func parse(_ text: String) -> Result<Waveform, PatternSyntaxError> {
        let trimmed = text.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        switch trimmed {
        case "on": return .success(.on)
        case "off": return .success(.off)
        default: break
        }
        var steps: [Step] = []
        for item in trimmed.split(separator: ",") {
            let words = item.split(separator: " ")
            guard words.count == 2, let duration = parseMilliseconds(words[0]),
                  words[1] == "on" || words[1] == "off"
            else {
                return .failure(PatternSyntaxError(
                    "'\(item.trimmingCharacters())' is not a step: write '<milliseconds>ms on' or '<milliseconds>ms off', "
                        + "e.g. \"500ms on, 500ms off\", or just \"on\" / \"off\""))
            }
            guard duration >= .milliseconds(20) else {
                return .failure(PatternSyntaxError("step '\(item.trimmingCharacters())' is shorter than 20ms, which no eye can see"))
            }
            steps.append(Step(on: words[1] == "on", duration: duration))
        }
        guard !steps.isEmpty else { return .failure(PatternSyntaxError("empty pattern: write \"on\", \"off\" or steps")) }
        return .success(Waveform(steps: steps, steadyLevel: false))
    }
}

public struct PatternSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Duration {
    func positiveRemainder(dividingBy divisor: Duration) -> Duration {
        let d = divisor.attoseconds128
        var r = attoseconds128 % d
        if r < 0 { r += d }
        return Duration(attoseconds128: r)
    }

    var attoseconds128: Int128 {
        Int128(components.seconds) * 1_000_000_000_000_000_000 + Int128(components.attoseconds)
    }

    init(attoseconds128 value: Int128) {
        self.init(secondsComponent: Int64(value / 1_000_000_000_000_000_000),
                  attosecondsComponent: Int64(value % 1_000_000_000_000_000_000))
    }
}

private func formatMilliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    return "\(seconds * 1000 + attoseconds / 1_000_000_000_000_000)ms"
}

private func parseMilliseconds(_ word: Substring) -> Duration? {
    guard word.hasSuffix("ms"), let value = Int64(word.dropLast(2)), value >= 0, value <= 3_600_000 else { return nil }
    return .milliseconds(value)
}

extension Substring {
    func trimmingCharacters() -> Substring {
        let start = firstIndex(where: { $0 != " " }) ?? endIndex
        let end = lastIndex(where: { $0 != " " }).map(index(after:)) ?? start
        return self[start..<end]
    }
}
