/// How often the person must check in, and how long before the deadline the reminder starts.
public struct CheckInSettings: Hashable, Sendable, CustomStringConvertible {
    public var interval: Duration
    public var reminder: Duration

    public init(interval: Duration, reminder: Duration) {
        self.interval = interval
        self.reminder = reminder
    }

    /// The app's defaults: a 24 h interval with a 2 h reminder.
    public static let `default` = CheckInSettings(interval: .seconds(24 * 3600), reminder: .seconds(2 * 3600))

    public var description: String {
        "interval \(DurationText.format(interval)), reminder \(DurationText.format(reminder))"
    }
}

/// Which settings a person may choose, and why anything else is refused.
public struct SettingsPolicy: Hashable, Sendable {
    /// The intervals the app offers: 8, 16, 24 and 48 hours.
    public static let offeredIntervals: [Duration] = [8, 16, 24, 48].map { .seconds($0 * 3600) }
    /// The reminder leads the app offers: 1, 2, 4 and 6 hours.
    public static let offeredReminders: [Duration] = [1, 2, 4, 6].map { .seconds($0 * 3600) }

    /// Smallest unit a setting may have: whole minutes normally, whole seconds in developer mode.
    public var granularity: Duration
    public var intervalRange: ClosedRange<Duration>
    public var minimumReminder: Duration

    /// Any whole number of minutes from 30 min to 7 days for the interval, and from 1 min for the reminder.
    public static let standard = SettingsPolicy(
        granularity: .seconds(60),
        intervalRange: .seconds(30 * 60) ... .seconds(7 * 24 * 3600),
        minimumReminder: .seconds(60)
    )

    /// Seconds instead of hours, for demos and end-to-end tests (config `developer.short_intervals`).
    public static let developer = SettingsPolicy(
        granularity: .seconds(1),
        intervalRange: .seconds(2) ... .seconds(7 * 24 * 3600),
        minimumReminder: .seconds(1)
    )

    public init(granularity: Duration, intervalRange: ClosedRange<Duration>, minimumReminder: Duration) {
        self.granularity = granularity
        self.intervalRange = intervalRange
        self.minimumReminder = minimumReminder
    }

    /// Checks a pair of settings; the error text says what is allowed.
    public func validate(_ settings: CheckInSettings) -> Result<CheckInSettings, SettingsError> {
        let unit = granularity == .seconds(1) ? "second" : "minute"
        for (name, value) in [("interval", settings.interval), ("reminder", settings.reminder)] {
            if value.wholeMicroseconds % granularity.wholeMicroseconds != 0 {
                return .failure(SettingsError("\(name) \(DurationText.format(value)) is not a whole number of \(unit)s"))
            }
        }
        if !intervalRange.contains(settings.interval) {
            return .failure(SettingsError(
                "interval \(DurationText.format(settings.interval)) is outside the allowed range "
                    + "\(DurationText.format(intervalRange.lowerBound))–\(DurationText.format(intervalRange.upperBound)) "
                    + "(offered: 8h, 16h, 24h, 48h)"))
        }
        if settings.reminder < minimumReminder {
            return .failure(SettingsError(
                "reminder \(DurationText.format(settings.reminder)) is shorter than the minimum "
                    + "\(DurationText.format(minimumReminder)) (offered: 1h, 2h, 4h, 6h)"))
        }
        if settings.reminder >= settings.interval {
            return .failure(SettingsError(
                "reminder \(DurationText.format(settings.reminder)) must be shorter than the interval "
                    + "\(DurationText.format(settings.interval))"))
        }
        return .success(settings)
    }
}

public struct SettingsError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
