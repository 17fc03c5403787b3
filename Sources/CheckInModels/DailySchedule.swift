/// `schedule = "daily"`: one to four check-in windows a day, the same every day unless a weekday
/// has windows of its own, on the local clock of an IANA time zone (nil: the system's).
public struct DailySchedule: Hashable, Sendable {
    /// The windows of every day without its own, earliest first.
    public var windows: [DailyWindow]
    /// Days with windows of their own (possibly none: no check-in asked for that day).
    public var overrides: [Weekday: [DailyWindow]]
    /// An IANA zone name (`Europe/London`); nil = the system's zone (`/etc/localtime`).
    public var timeZone: String?

    /// How many windows a day may have.
    public static let windowsPerDay = 1...4

    public init(windows: [DailyWindow], overrides: [Weekday: [DailyWindow]] = [:], timeZone: String? = nil) {
        self.windows = windows
        self.overrides = overrides
        self.timeZone = timeZone
    }

    public func windows(on weekday: Weekday) -> [DailyWindow] {
        overrides[weekday] ?? windows
    }

    /// Checks one day's windows: how many, in order, not overlapping. `allowNone` for a weekday
    /// that asks for no check-in.
    public static func validate(_ windows: [DailyWindow], allowNone: Bool) -> Result<[DailyWindow], ScheduleTextError> {
        if windows.isEmpty, allowNone { return .success([]) }
        guard windowsPerDay.contains(windows.count) else {
            return .failure(ScheduleTextError("\(windows.count) windows; a day has \(windowsPerDay.lowerBound) to \(windowsPerDay.upperBound)"))
        }
        let sorted = windows.sorted { $0.start < $1.start }
        for (earlier, later) in zip(sorted, sorted.dropFirst()) where later.start < earlier.end {
            return .failure(ScheduleTextError("the windows \(earlier) and \(later) overlap"))
        }
        return .success(sorted)
    }

    /// Whether any day of the week has a window (a schedule that never asks is refused).
    public var asksForCheckIns: Bool {
        Weekday.allCases.contains { !windows(on: $0).isEmpty }
    }

    /// The longest time a person can go between two presses without missing a window: from the
    /// start of one window to the end of the next, over the week (on the local clock; a clock
    /// change moves it by an hour, which `longestGapMargin` covers). With an unknown local time
    /// the device declares overdue only once even this has passed since the last check-in.
    public var longestGap: Duration {
        var starts: [Int] = [], ends: [Int] = []
        for weekday in Weekday.allCases {
            for window in windows(on: weekday) {
                starts.append(weekday.rawValue * 1440 + window.start.minuteOfDay)
                ends.append(weekday.rawValue * 1440 + window.end.minuteOfDay)
            }
        }
        guard !starts.isEmpty else { return .seconds(7 * 86_400) }
        var longest = 0
        let week = 7 * 1440
        for (index, start) in starts.enumerated() {
            // The next window's end after this window's start, around the week.
            let next = (index + 1) % starts.count
            var end = ends[next]
            while end <= start { end += week }
            if starts.count == 1 { end = ends[index] + week }
            longest = max(longest, end - start)
        }
        return .seconds(Int64(longest) * 60) + Self.longestGapMargin
    }

    /// A clock change can lengthen a local gap by an hour.
    public static let longestGapMargin = Duration.seconds(3600)

    /// One window on one date, with the instants it starts and ends.
    public struct Occurrence: Hashable, Sendable {
        public var date: LocalDate
        public var window: DailyWindow
        public var start: WallTime
        public var end: WallTime

        public init(date: LocalDate, window: DailyWindow, start: WallTime, end: WallTime) {
            self.date = date
            self.window = window
            self.start = start
            self.end = end
        }
    }

    /// Every window starting on the local dates from `first` through `last`, in order; nil when
    /// the zone's offsets cannot be read.
    public func occurrences(from first: LocalDate, through last: LocalDate, offsets: UTCOffsets) -> [Occurrence]? {
        var result: [Occurrence] = []
        var date = first
        while date <= last {
            for window in windows(on: date.weekday) {
                guard let start = ZoneMath.instant(of: date, minute: window.start.minuteOfDay, offsets: offsets),
                      let end = ZoneMath.instant(of: date, minute: window.end.minuteOfDay, offsets: offsets)
                else { return nil }
                result.append(Occurrence(date: date, window: window, start: start, end: max(end, start)))
            }
            date = date.adding(days: 1)
        }
        return result
    }

    /// `07:00-10:00, 18:00-20:00; saturday 09:00-11:00; sunday none`, for status and logs.
    public var description: String {
        var text = windows.map(\.description).joined(separator: ", ")
        for weekday in Weekday.allCases.sorted(by: { ($0.rawValue + 6) % 7 < ($1.rawValue + 6) % 7 }) {
            guard let days = overrides[weekday] else { continue }
            text += "; \(weekday.name) " + (days.isEmpty ? "none" : days.map(\.description).joined(separator: ", "))
        }
        return text
    }
}

/// How the deadline is set: a rolling interval from the last check-in, or daily windows.
public enum CheckInSchedule: Hashable, Sendable {
    case interval
    case daily(DailySchedule)

    public var daily: DailySchedule? {
        if case let .daily(schedule) = self { schedule } else { nil }
    }

    /// `interval` or `daily`.
    public var name: String {
        switch self {
        case .interval: "interval"
        case .daily: "daily"
        }
    }
}

/// `[quiet_hours] from/to`: reminder beeps are silent between them (across midnight when `from`
/// is later than `to`); the LEDs keep their meaning, and the last-chance warning, a help alert and
/// a ping always sound.
public struct QuietHours: Hashable, Sendable, CustomStringConvertible {
    public var from: ClockTime
    public var to: ClockTime

    public init(from: ClockTime, to: ClockTime) {
        self.from = from
        self.to = to
    }

    /// Whether the local minute of the day lies in the quiet hours.
    public func contains(minuteOfDay minute: Int) -> Bool {
        if from <= to { return minute >= from.minuteOfDay && minute < to.minuteOfDay }
        return minute >= from.minuteOfDay || minute < to.minuteOfDay
    }

    public var description: String { "\(from)-\(to)" }
}
