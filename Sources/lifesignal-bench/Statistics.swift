/// Percentiles of a sample (nearest rank) and their text in milliseconds.
struct Sample {
    private(set) var values: [Duration] = []

    mutating func add(_ value: Duration) { values.append(value) }

    var count: Int { values.count }

    func percentile(_ p: Double) -> Duration {
        precondition(!values.isEmpty, "a percentile of no values")
        let sorted = values.sorted()
        let rank = Int((p / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var maximum: Duration { values.max() ?? .zero }

    var summary: String {
        guard !values.isEmpty else { return "no samples" }
        return "p50 \(milliseconds(percentile(50)))  p99 \(milliseconds(percentile(99)))  max \(milliseconds(maximum))  (n = \(count))"
    }
}

func milliseconds(_ duration: Duration) -> String {
    let (seconds, attoseconds) = duration.components
    let microseconds = seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    let whole = microseconds / 1000
    let fraction = abs(microseconds % 1000)
    let padded = String(repeating: "0", count: 3 - String(fraction).count) + String(fraction)
    return "\(microseconds < 0 && whole == 0 ? "-" : "")\(whole).\(padded) ms"
}

func megabytes(kilobytes: Int) -> String {
    let tenths = (kilobytes * 10 + 512) / 1024
    return "\(tenths / 10).\(tenths % 10) MiB"
}

/// A non-negative number with two decimals, without Foundation's formatter.
func format(_ value: Double) -> String {
    guard value.isFinite else { return "∞" }
    let hundredths = Int((value * 100).rounded())
    let fraction = hundredths % 100
    return "\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
}
