public import CheckInModels

/// Away mode in `status` and in the answer to `away`.
public struct AwayReport: Codable, Hashable, Sendable {
    /// off, away, saving.
    public var state: String
    /// ISO 8601 UTC, while away.
    public var since: String?
    public var until: String?
    public var secondsLeft: Int64?
    /// cli, backend.
    public var source: String?
    /// `[away] press_ends`.
    public var pressEnds: Bool

    public init(state: String, since: String? = nil, until: String? = nil, secondsLeft: Int64? = nil, source: String? = nil,
                pressEnds: Bool) {
        self.state = state
        self.since = since
        self.until = until
        self.secondsLeft = secondsLeft
        self.source = source
        self.pressEnds = pressEnds
    }
}

/// One away period in `away-list` and `history`.
public struct AwayPeriodReport: Codable, Hashable, Sendable {
    public var id: String
    /// ISO 8601 UTC.
    public var since: String
    /// When it was to end by itself.
    public var until: String
    /// When it ended; nil while it runs.
    public var ended: String?
    /// expired, cli, press, backend, replaced.
    public var endReason: String?
    public var source: String
    public var sinceClockSynchronized: Bool

    public init(_ period: AwayPeriod) {
        id = period.id.description
        since = period.start.wall.iso8601
        until = period.until.iso8601
        ended = period.ended.map { $0.reason == .expired ? period.until.iso8601 : $0.at.wall.iso8601 }
        endReason = period.ended?.reason.rawValue
        source = period.source.rawValue
        sinceClockSynchronized = period.start.wallClockSynchronized
    }
}

/// How deadlines are set, in `status`.
public struct ScheduleReport: Codable, Hashable, Sendable {
    /// interval, daily.
    public var kind: String
    /// Daily: `07:00-10:00, 18:00-20:00; sunday none`.
    public var windows: String?
    /// Daily and quiet hours: the zone (nil: the system's).
    public var timeZone: String?
    /// The last-chance warning between the deadline and overdue.
    public var graceSeconds: Int64
    /// Daily: the local time is unknown (no synchronised clock since start): docs/time.md.
    public var localTimeUnknown: Bool
    /// `[quiet_hours]`, e.g. `22:00-07:00`, and whether they hold now.
    public var quietHours: String?
    public var quietNow: Bool?

    public init(kind: String, windows: String?, timeZone: String?, graceSeconds: Int64, localTimeUnknown: Bool,
                quietHours: String?, quietNow: Bool?) {
        self.kind = kind
        self.windows = windows
        self.timeZone = timeZone
        self.graceSeconds = graceSeconds
        self.localTimeUnknown = localTimeUnknown
        self.quietHours = quietHours
        self.quietNow = quietNow
    }
}

/// The mains power and the device's own events, in `status`.
public struct PowerReport: Codable, Hashable, Sendable {
    /// present, lost, unknown; nil without `[power] mains_line`.
    public var mains: String?
    /// ISO 8601 UTC, while on battery.
    public var onBatterySince: String?
    public var lowBattery: Bool
    /// This run's events, newest last.
    public var events: [PowerEventReport]

    public init(mains: String?, onBatterySince: String?, lowBattery: Bool, events: [PowerEventReport]) {
        self.mains = mains
        self.onBatterySince = onBatterySince
        self.lowBattery = lowBattery
        self.events = events
    }
}

public struct PowerEventReport: Codable, Hashable, Sendable {
    public var id: String
    /// on_battery, power_restored, low_battery, unexpected_restart.
    public var kind: String
    public var summary: String
    public var at: String

    public init(_ event: PowerEvent) {
        id = event.id.description
        kind = event.kind.rawValue
        summary = event.summary
        at = event.at.wall.iso8601
    }
}

/// The buzzer, in `status`.
public struct BuzzerReport: Codable, Hashable, Sendable {
    /// What it says now: alert_cancel_window, last_chance, ping, reminder; nil: silence.
    public var signal: String?
    /// Whether the line is on right now, and how many beeps it has made since the start.
    public var on: Bool
    public var beeps: Int

    public init(signal: String?, on: Bool, beeps: Int) {
        self.signal = signal
        self.on = on
        self.beeps = beeps
    }
}

/// How long away mode lasts, as a person writes it: a duration (`3d`, `2h30m`), a time of day
/// (`18:00`: the next one), a date (`2026-12-24`: its start) or a date and time
/// (`2026-12-24 18:00`), on the device's local clock; or an instant in UTC (`…Z`).
public enum AwayUntil: Hashable, Sendable {
    case lasting(Duration)
    case local(date: LocalDate?, minute: Int)
    case instant(WallTime)

    public static func parsing(_ text: String) -> Result<AwayUntil, ControlProtocolError> {
        let trimmed = String(text.drop { $0 == " " })
        if let duration = DurationText.parse(trimmed) { return .success(.lasting(duration)) }
        if trimmed.hasSuffix("Z"), let instant = WallTime(iso8601: trimmed) { return .success(.instant(instant)) }
        let parts = trimmed.split(whereSeparator: { $0 == " " || $0 == "T" })
        var date: LocalDate?
        var minute = 0
        for part in parts {
            if part.contains(":"), case let .success(time) = ClockTime.parsing(part), time.minuteOfDay < 1440 {
                minute = time.minuteOfDay
            } else if let parsed = Self.date(part), date == nil {
                date = parsed
            } else {
                return .failure(Self.refusal(text))
            }
        }
        guard !parts.isEmpty, date != nil || parts.count == 1 else { return .failure(Self.refusal(text)) }
        return .success(.local(date: date, minute: minute))
    }

    /// `YYYY-MM-DD`.
    static func date(_ text: Substring) -> LocalDate? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
              let year = Int64(fields[0]), let month = Int64(fields[1]), let day = Int64(fields[2]),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let date = LocalDate(year: year, month: month, day: day)
        // 31 February is not a date.
        return date.components == (year, month, day) ? date : nil
    }

    static func refusal(_ text: String) -> ControlProtocolError {
        ControlProtocolError("until \(TerminalText.quoted(text)) is neither a duration (3d, 2h30m) nor a time on the device's "
            + "clock (18:00, 2026-12-24, 2026-12-24 18:00)")
    }
}
