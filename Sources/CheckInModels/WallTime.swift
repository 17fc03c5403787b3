/// Wall-clock time as whole microseconds since the Unix epoch (UTC).
///
/// Kept apart from `Duration`-based monotonic time on purpose: the wall clock can jump (NTP, a Pi
/// without a real-time clock booting in 1970), so it is used for display and across reboots only;
/// countdowns within one boot run on monotonic time.
public struct WallTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var microsecondsSinceEpoch: Int64

    public init(microsecondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = microsecondsSinceEpoch
    }

    public init(secondsSinceEpoch: Int64) {
        self.microsecondsSinceEpoch = secondsSinceEpoch * 1_000_000
    }

    public static func < (lhs: WallTime, rhs: WallTime) -> Bool {
        lhs.microsecondsSinceEpoch < rhs.microsecondsSinceEpoch
    }

    public static func + (lhs: WallTime, rhs: Duration) -> WallTime {
        WallTime(microsecondsSinceEpoch: lhs.microsecondsSinceEpoch + rhs.wholeMicroseconds)
    }

    public static func - (lhs: WallTime, rhs: WallTime) -> Duration {
        .microseconds(lhs.microsecondsSinceEpoch - rhs.microsecondsSinceEpoch)
    }

    /// ISO 8601 / RFC 3339 in UTC with millisecond precision, e.g. `2026-11-22T21:55:19.042Z`.
    public var iso8601: String { rfc3339(fractionDigits: 3) }

    /// RFC 3339 in UTC with `fractionDigits` (1…6) digits of the second, truncated towards the
    /// past: `rfc3339(fractionDigits: 6)` keeps every stored microsecond.
    public func rfc3339(fractionDigits: Int) -> String {
        let digits = min(max(fractionDigits, 1), 6)
        let (seconds, micros) = microsecondsSinceEpoch.floorDivided(by: 1_000_000)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        let (year, month, day) = civilDate(fromDaysSinceEpoch: days)
        let hour = secondOfDay / 3600, minute = secondOfDay / 60 % 60, second = secondOfDay % 60
        let fraction = micros / Int64(pow10(6 - digits))
        guard (0...9999).contains(year) else {
            // Years the fixed layout cannot hold (an unset clock far off): the general way.
            return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(hour, 2)):\(pad(minute, 2)):\(pad(second, 2))"
                + ".\(pad(fraction, digits))Z"
        }
        // Written digit by digit into the string's storage: every upload formats each check-in's time.
        return String(unsafeUninitializedCapacity: 21 + digits) { buffer in
            var offset = 0
            func put(_ value: Int64, _ width: Int) {
                var value = value
                for index in stride(from: offset + width - 1, through: offset, by: -1) {
                    buffer[index] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
                offset += width
            }
            func put(_ character: Unicode.Scalar) {
                buffer[offset] = UInt8(ascii: character)
                offset += 1
            }
            put(year, 4); put("-"); put(month, 2); put("-"); put(day, 2); put("T")
            put(hour, 2); put(":"); put(minute, 2); put(":"); put(second, 2); put(".")
            put(fraction, digits); put("Z")
            return offset
        }
    }

    /// The largest year, either side of year 0, that `init(iso8601:)` accepts: far beyond any
    /// clock, and small enough that no arithmetic on the result overflows.
    public static let yearLimit: Int64 = 100_000

    /// Parses what `iso8601` prints (UTC, `Z`, optional fraction of up to 6 digits).
    public init?(iso8601 text: String) {
        if let fixed = Self.parseFixedLayout(text) {
            guard let microseconds = fixed else { return nil }
            self.init(microsecondsSinceEpoch: microseconds)
            return
        }
        let parts = text.split(separator: "T")
        guard parts.count == 2, text.hasSuffix("Z") else { return nil }
        let date = parts[0].split(separator: "-").compactMap { Int64($0) }
        var time = parts[1].dropLast()
        var micros: Int64 = 0
        if let dot = time.firstIndex(of: ".") {
            let fraction = time[time.index(after: dot)...]
            guard (1...6).contains(fraction.count), let value = Int64(fraction) else { return nil }
            micros = value * Int64(pow10(6 - fraction.count))
            time = time[..<dot]
        }
        let clock = time.split(separator: ":").compactMap { Int64($0) }
        // The year is bounded because the text may come from a server: microseconds since 1970
        // overflow Int64 beyond ±292,000 years, and the difference of two times must fit as well.
        guard date.count == 3, clock.count == 3, (-Self.yearLimit...Self.yearLimit).contains(date[0]),
              (1...12).contains(date[1]), (1...31).contains(date[2]),
              (0..<24).contains(clock[0]), (0..<60).contains(clock[1]), (0..<61).contains(clock[2])
        else { return nil }
        let days = daysSinceEpoch(year: date[0], month: date[1], day: date[2])
        let seconds = days * 86_400 + clock[0] * 3600 + clock[1] * 60 + clock[2]
        self.init(microsecondsSinceEpoch: seconds * 1_000_000 + micros)
    }

    public var description: String { iso8601 }

    /// The common layout `YYYY-MM-DDThh:mm:ss[.f…f]Z` (1–6 fraction digits) read byte by byte, with
    /// the same range checks as the general parser: `.some(nil)` when the layout matches but a field
    /// is out of range, nil when the text has another layout (the general parser then decides).
    /// The reference server parses every uploaded check-in's time; splitting strings was 15 % of
    /// its CPU time while a backlog arrived.
    private static func parseFixedLayout(_ text: String) -> Int64?? {
        var text = text
        return text.withUTF8 { bytes -> Int64?? in
            guard bytes.count == 20 || (22...27).contains(bytes.count), bytes[bytes.count - 1] == UInt8(ascii: "Z"),
                  bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
                  bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
                  bytes.count == 20 || bytes[19] == UInt8(ascii: ".")
            else { return nil }
            func number(_ range: Range<Int>) -> Int64? {
                var value: Int64 = 0
                for index in range {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int64(digit)
                }
                return value
            }
            let fractionDigits = max(bytes.count - 21, 0)
            guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
                  let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
                  let fraction = number(20..<(20 + fractionDigits))
            else { return nil }
            guard (1...12).contains(month), (1...31).contains(day),
                  (0..<24).contains(hour), (0..<60).contains(minute), (0..<61).contains(second)
            else { return .some(nil) }
            let days = daysSinceEpoch(year: year, month: month, day: day)
            let seconds = days * 86_400 + hour * 3600 + minute * 60 + second
            return .some(seconds * 1_000_000 + fraction * Int64(pow10(6 - fractionDigits)))
        }
    }
}

extension Duration {
    /// The duration truncated to whole microseconds (what the store and the wall clock keep).
    ///
    /// Saturates at ±`Int64.max` µs (±292,000 years) instead of trapping: a duration can come from
    /// a server or a damaged row, and a limit check on it must get to say "out of range".
    public var wholeMicroseconds: Int64 {
        let (seconds, attoseconds) = components
        let (micros, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        let (total, overflow2) = micros.addingReportingOverflow(attoseconds / 1_000_000_000_000)
        guard !overflow, !overflow2 else { return seconds < 0 ? -Int64.max : Int64.max }
        return total
    }

    public var wholeSeconds: Int64 { components.seconds }
}

extension Int64 {
    /// Division rounding towards negative infinity, so times before 1970 format correctly.
    func floorDivided(by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        var quotient = self / divisor
        var remainder = self % divisor
        if remainder < 0 {
            quotient -= 1
            remainder += divisor
        }
        return (quotient, remainder)
    }
}

private func pow10(_ exponent: Int) -> Int {
    (0..<exponent).reduce(1) { value, _ in value * 10 }
}

private func pad(_ value: Int64, _ width: Int) -> String {
    let digits = String(value)
    return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
}

// Howard Hinnant's days-from-civil algorithms (public domain), valid for the proleptic Gregorian calendar.
func civilDate(fromDaysSinceEpoch days: Int64) -> (Int64, Int64, Int64) {
    let z = days + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let monthIndex = (5 * dayOfYear + 2) / 153
    let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
    let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
    return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
}

func daysSinceEpoch(year: Int64, month: Int64, day: Int64) -> Int64 {
    let y = month <= 2 ? year - 1 : year
    let era = (y >= 0 ? y : y - 399) / 400
    let yearOfEra = y - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
}
