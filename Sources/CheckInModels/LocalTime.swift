/// A time of day on the local clock, to the minute (`07:00`); `24:00` is the end of the day.
public struct ClockTime: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// 0 (midnight) … 1440 (the end of the day).
    public var minuteOfDay: Int

    public init?(hour: Int, minute: Int) {
        guard (0...24).contains(hour), (0...59).contains(minute), hour < 24 || minute == 0 else { return nil }
        minuteOfDay = hour * 60 + minute
    }

    public init(minuteOfDay: Int) {
        self.minuteOfDay = min(max(minuteOfDay, 0), 1440)
    }

    public static func < (lhs: ClockTime, rhs: ClockTime) -> Bool { lhs.minuteOfDay < rhs.minuteOfDay }

    /// `07:00`.
    public var description: String {
        let hour = minuteOfDay / 60, minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// `HH:MM` on the 24-hour clock (`7:05` and `07:05` alike, `24:00` for the end of the day).
    public static func parsing(_ text: Substring) -> Result<ClockTime, ScheduleTextError> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...2).contains(parts[0].count), parts[1].count == 2,
              parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
              let hour = Int(parts[0]), let minute = Int(parts[1])
        else { return .failure(ScheduleTextError("\(TerminalText.quoted(String(text))) is not a time of day; write HH:MM on the 24-hour clock, e.g. 07:00")) }
        guard let time = ClockTime(hour: hour, minute: minute) else {
            return .failure(ScheduleTextError("\(TerminalText.quoted(String(text))) is not a time of day: hours go from 00 to 23 (24:00 ends the day), minutes from 00 to 59"))
        }
        return .success(time)
    }
}

/// A daily check-in window, `07:00-10:00`: a press inside it satisfies it; its start is the
/// reminder, its end the deadline. A window lies within one day (it cannot cross midnight).
public struct DailyWindow: Hashable, Sendable, CustomStringConvertible {
    public var start: ClockTime
    public var end: ClockTime

    public init(start: ClockTime, end: ClockTime) {
        self.start = start
        self.end = end
    }

    public var description: String { "\(start)-\(end)" }

    /// `HH:MM-HH:MM`, start before end.
    public static func parsing(_ text: String) -> Result<DailyWindow, ScheduleTextError> {
        let trimmed = text.trimmingSpaces
        let parts = trimmed.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            return .failure(ScheduleTextError("\(TerminalText.quoted(text)) is not a window; write two times of day, e.g. \"07:00-10:00\""))
        }
        let start: ClockTime, end: ClockTime
        switch ClockTime.parsing(String(parts[0]).trimmingSpaces) {
        case let .success(time): start = time
        case let .failure(problem): return .failure(problem)
        }
        switch ClockTime.parsing(String(parts[1]).trimmingSpaces) {
        case let .success(time): end = time
        case let .failure(problem): return .failure(problem)
        }
        guard start < end else {
            return .failure(ScheduleTextError("the window \(TerminalText.quoted(text)) ends before it starts; a window lies within one "
                + "day (use two windows, …-24:00 and 00:00-…, for one across midnight)"))
        }
        guard start.minuteOfDay < 1440 else {
            return .failure(ScheduleTextError("the window \(TerminalText.quoted(text)) starts at the end of the day"))
        }
        return .success(DailyWindow(start: start, end: end))
    }
}

/// A day of the week, numbered as the C library's `tm_wday` (Sunday 0).
public enum Weekday: Int, Hashable, Sendable, CaseIterable, Comparable {
    case sunday = 0, monday, tuesday, wednesday, thursday, friday, saturday

    /// `monday`, as the config file names it.
    public var name: String {
        switch self {
        case .sunday: "sunday"
        case .monday: "monday"
        case .tuesday: "tuesday"
        case .wednesday: "wednesday"
        case .thursday: "thursday"
        case .friday: "friday"
        case .saturday: "saturday"
        }
    }

    public static func < (lhs: Weekday, rhs: Weekday) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Why a time, a window or a schedule was refused.
public struct ScheduleTextError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A calendar date (proleptic Gregorian), as days since 1970-01-01 underneath.
public struct LocalDate: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var daysSinceEpoch: Int64

    public init(daysSinceEpoch: Int64) {
        self.daysSinceEpoch = daysSinceEpoch
    }

    public init(year: Int64, month: Int64, day: Int64) {
        daysSinceEpoch = CheckInModels.daysSinceEpoch(year: year, month: month, day: day)
    }

    public var components: (year: Int64, month: Int64, day: Int64) {
        let (year, month, day) = civilDate(fromDaysSinceEpoch: daysSinceEpoch)
        return (year, month, day)
    }

    /// 1970-01-01 was a Thursday.
    public var weekday: Weekday {
        Weekday(rawValue: Int((daysSinceEpoch + 4).floorDivided(by: 7).remainder)) ?? .sunday
    }

    public func adding(days: Int64) -> LocalDate { LocalDate(daysSinceEpoch: daysSinceEpoch + days) }

    public static func < (lhs: LocalDate, rhs: LocalDate) -> Bool { lhs.daysSinceEpoch < rhs.daysSinceEpoch }

    /// `2026-03-29`.
    public var description: String {
        let (year, month, day) = components
        return "\(year)-" + (month < 10 ? "0" : "") + "\(month)-" + (day < 10 ? "0" : "") + "\(day)"
    }
}

/// A zone's offset from UTC at an instant, in seconds east (London in summer: 3600); nil when the
/// zone's rules cannot be read. The live value asks the C library over the system's tzdata.
public typealias UTCOffsets = (WallTime) -> Int?

/// Local calendar arithmetic over a zone's UTC offsets. The offsets come from the C library; this
/// only turns "07:00 on 29 March" into the instant it is, and an instant into its local date and
/// minute, including the days a zone's clocks go forward or back.
public enum ZoneMath {
    /// The local date and second of the day of `time` in a zone with `offset` (seconds east).
    public static func local(_ time: WallTime, offset: Int) -> (date: LocalDate, secondOfDay: Int64) {
        let seconds = time.microsecondsSinceEpoch.floorDivided(by: 1_000_000).quotient + Int64(offset)
        let (days, secondOfDay) = seconds.floorDivided(by: 86_400)
        return (LocalDate(daysSinceEpoch: days), secondOfDay)
    }

    /// The instant the local clock shows `minute` on `date`. When the clocks go back and that
    /// reading happens twice, the first; when they go forward over it (it never happens), the
    /// instant it would have been by the offset before the change, which lies just after the gap
    /// (02:30 on a night the clocks jump from 02:00 to 03:00 is 03:30). Nil when the zone's
    /// offsets cannot be read.
    public static func instant(of date: LocalDate, minute: Int, offsets: UTCOffsets) -> WallTime? {
        // The local reading as if it were UTC.
        let asUTC = date.daysSinceEpoch * 86_400 + Int64(minute) * 60
        let dayBefore = WallTime(secondsSinceEpoch: asUTC - 86_400), dayAfter = WallTime(secondsSinceEpoch: asUTC + 86_400)
        guard let before = offsets(dayBefore), let after = offsets(dayAfter) else { return nil }
        var matches: [Int64] = []
        for offset in Set([before, after]) {
            let candidate = asUTC - Int64(offset)
            guard let actual = offsets(WallTime(secondsSinceEpoch: candidate)) else { return nil }
            if actual == offset { matches.append(candidate) }
        }
        if let first = matches.min() { return WallTime(secondsSinceEpoch: first) }
        return WallTime(secondsSinceEpoch: asUTC - Int64(before))
    }
}
