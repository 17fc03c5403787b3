/// Durations as people write them: `24h`, `90m`, `1h30m`, `45s`, `250ms`.
public enum DurationText {
    /// Parses a non-empty sequence of `<whole number><unit>` terms, units `d h m s ms`.
    public static func parse(_ text: String) -> Duration? {
        let units: [(String, Int64)] = [("ms", 1_000), ("d", 86_400_000_000), ("h", 3_600_000_000),
                                        ("m", 60_000_000), ("s", 1_000_000)]
        var rest = Substring(text.trimmingSpaces)
        guard !rest.isEmpty else { return nil }
        var total: Int64 = 0
        while !rest.isEmpty {
            let digits = rest.prefix(while: { $0.isASCII && $0.isNumber })
            guard !digits.isEmpty, digits.count <= 12, let number = Int64(digits) else { return nil }
            rest = rest.dropFirst(digits.count)
            guard let (unit, micros) = units.first(where: { rest.hasPrefix($0.0) }) else { return nil }
            rest = rest.dropFirst(unit.count)
            let (product, overflow) = number.multipliedReportingOverflow(by: micros)
            guard !overflow else { return nil }
            let (sum, overflow2) = total.addingReportingOverflow(product)
            guard !overflow2 else { return nil }
            total = sum
        }
        return .microseconds(total)
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

    /// Rounded, for people: "3 h 12 min", "45 s", "2 d 4 h".
    public static func humane(_ duration: Duration) -> String {
        let seconds = abs(duration.wholeSeconds)
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min" + (seconds % 60 == 0 ? "" : " \(seconds % 60) s")
        case ..<86_400: return "\(seconds / 3600) h" + (seconds / 60 % 60 == 0 ? "" : " \(seconds / 60 % 60) min")
        default: return "\(seconds / 86_400) d" + (seconds / 3600 % 24 == 0 ? "" : " \(seconds / 3600 % 24) h")
        }
    }
}

extension String {
    var trimmingSpaces: Substring {
        let start = firstIndex(where: { $0 != " " }) ?? endIndex
        let end = lastIndex(where: { $0 != " " }).map(index(after:)) ?? start
        return self[start..<end]
    }
}
