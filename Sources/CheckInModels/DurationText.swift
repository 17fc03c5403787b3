/// Durations as people write them: `24h`, `90m`, `1h30m`, `45s`, `250ms`.
///
/// The one parser of durations a person types: the config file, `lifesignalctl` and the control
/// requests all go through `parsing(_:)`, so a text means the same everywhere.
public enum DurationText {
    /// The units, largest first; a duration names each at most once, in this order.
    static let units: [(name: String, micros: Int64)] = [
        ("d", 86_400_000_000), ("h", 3_600_000_000), ("m", 60_000_000), ("s", 1_000_000), ("ms", 1_000),
    ]

    /// `units`' indices with longer names first: "ms" is tried before "m".
    private static let matchOrder = units.indices.sorted { units[$0].name.count > units[$1].name.count }

    /// Parses a non-empty sequence of `<whole number><unit>` terms, units `d h m s ms`, each unit at
    /// most once and largest first (`1h30m`, not `30m1h` or `1h1h`); spaces around it are ignored.
    public static func parse(_ text: String) -> Duration? {
        try? parsing(text).get()
    }

    /// `parse(_:)` with the reason when the text is not a duration.
    public static func parsing(_ text: String) -> Result<Duration, DurationTextError> {
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return .failure(DurationTextError("it is empty")) }
        if rest.hasPrefix("-") { return .failure(DurationTextError("it is negative")) }
        var total: Int64 = 0
        var previous: Int?  // index in `units` of the last unit read
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty else {
                return .failure(DurationTextError(previous == nil
                    ? "it must start with a whole number, e.g. 150ms, 4s, 1h30m"
                    : "after \(units[previous!].name) comes something that is not a whole number; write e.g. 1h30m"))
            }
            guard digits.count <= 12, let number = Int64(digits) else {
                return .failure(DurationTextError("the number \(digits.prefix(20)) is too long"))
            }
            rest = rest.dropFirst(digits.count)
            guard let index = matchOrder.first(where: { rest.hasPrefix(units[$0].name) })
            else {
                return .failure(DurationTextError(rest.isEmpty
                    ? "\(digits) has no unit; add one of d, h, m, s, ms, e.g. \(digits)s"
                    : "\(digits) is followed by an unknown unit; the units are d, h, m, s and ms"))
            }
            if let previous {
                if index == previous {
                    return .failure(DurationTextError(
                        "the unit \(units[index].name) appears twice; write each unit once, largest first, e.g. 1h30m",
                        isAboutUnitOrder: true))
                }
                if index < previous {
                    return .failure(DurationTextError("\(units[index].name) comes after \(units[previous].name); "
                        + "write the units largest first (d, h, m, s, ms), e.g. 1h30m", isAboutUnitOrder: true))
                }
            }
            previous = index
            rest = rest.dropFirst(units[index].name.count)
            let (product, overflow) = number.multipliedReportingOverflow(by: units[index].micros)
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow, !overflow2 else { return .failure(DurationTextError("it is too long a duration")) }
            total = sum
        }
        return .success(.microseconds(total))
    }

    /// The shortest exact text for a duration, e.g. `1h30m`, `2s`, `250ms`, `0s`. Days are used
    /// only from a week on, so check-in intervals read as people choose them: `24h`, `48h`, `8d`.
    public static func format(_ duration: Duration) -> String {
        var micros = duration.wholeMicroseconds
        if micros == 0 { return "0s" }
        var text = micros < 0 ? "-" : ""
        micros = abs(micros)
        let day = Int64(86_400_000_000)
        let units: [(String, Int64)] = (micros >= 7 * day ? [("d", day)] : [])
            + [("h", 3_600_000_000), ("m", 60_000_000), ("s", 1_000_000), ("ms", 1_000)]
        for (unit, size) in units where micros >= size {
            text += "\(micros / size)\(unit)"
            micros %= size
        }
        if micros > 0 { text += "\(micros)us" }
        return text
    }

    /// Rounded, for people: "3 h 12 min", "7 min 48 s", "45 s", "250 ms", "2 d 4 h". The one way
    /// a duration reads in a message, a log line or a ping's body (`format` is for what people
    /// type: the config file, `lifesignalctl settings`).
    public static func humane(_ duration: Duration) -> String {
        let seconds = abs(duration.wholeSeconds)
        if seconds == 0, duration != .zero { return "\(abs(duration.wholeMicroseconds) / 1000) ms" }
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s")
        case ..<86_400: return "\(seconds / 3600) h" + (seconds / 60 % 60 == 0 ? "" : " \(seconds / 60 % 60) min")
        default: return "\(seconds / 86_400) d" + (seconds / 3600 % 24 == 0 ? "" : " \(seconds / 3600 % 24) h")
        }
    }
}

/// Why a text is not a duration, e.g. "the unit h appears twice; …". It never repeats the text
/// itself: the caller shows it (escaped) with the name of what it was meant for.
public struct DurationTextError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// A unit repeated or out of order ("12h12h", "30m1h"), rather than text that is no duration at all.
    public var isAboutUnitOrder: Bool

    public init(_ message: String, isAboutUnitOrder: Bool = false) {
        self.message = message
        self.isAboutUnitOrder = isAboutUnitOrder
    }

    public var description: String { message }
}

extension String {
    var trimmingSpaces: Substring {
        let start = firstIndex(where: { $0 != " " }) ?? endIndex
        let end = lastIndex(where: { $0 != " " }).map(index(after:)) ?? start
        return self[start..<end]
    }
}
