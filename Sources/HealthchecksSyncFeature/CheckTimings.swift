public import CheckInModels
public import UplinkClient

/// How the device's settings become its checks' timeout and grace (docs/healthchecks.md, "Timeout
/// and grace"). healthchecks counts from when a ping arrives: a check is late when `timeout` has
/// passed, and down (it notifies) when `grace` has passed after that.
public enum CheckTimings {
    /// healthchecks accepts timeout and grace from one minute to a year, in whole seconds.
    public static let shortest = Duration.seconds(60)
    public static let longest = Duration.seconds(365 * 86_400)

    /// The check-in check: late when the device turns amber (`interval − reminder`), down (the
    /// people are told) when the device turns red (`interval`): timeout + grace = interval,
    /// grace = reminder. Clamped to healthchecks' one-minute minimum, which only second-scale
    /// developer settings reach (the check then goes down later than the device shows overdue).
    public static func checkIn(_ settings: CheckInSettings) -> (timeout: Duration, grace: Duration) {
        (clamped(settings.interval - settings.reminder), clamped(settings.reminder))
    }

    /// The heartbeat check: one beat per period; down after two more periods without one, so a
    /// router restart or a short outage pages nobody, and an unplugged device is known within
    /// three periods (45 min with the default 15 min).
    public static func heartbeat(period: Duration) -> (timeout: Duration, grace: Duration) {
        (clamped(period), clamped(period * 2))
    }

    /// The help-alert check the device makes only ever gets `fail` signals (between alerts the
    /// device pauses it through the API instead of pinging it up), so its timeout never runs: the
    /// longest there is, so that a stray success ping (someone trying the URL) can never turn into
    /// a false help alert a day later.
    public static let alert = (timeout: longest, grace: longest)

    static func clamped(_ duration: Duration) -> Duration {
        .seconds(min(max(duration, shortest), longest).wholeSeconds)
    }

    /// The checks a device with these settings wants, found by `<slugPrefix>-<role>`.
    public static func specs(settings: CheckInSettings, heartbeat: Duration, slugPrefix: String) -> [CheckSpec] {
        specs(plan: CheckInCheckPlan(settings: settings), heartbeat: heartbeat, slugPrefix: slugPrefix)
    }

    /// The check-in check with the last-chance grace: the device tells people when the grace
    /// ends, so the check goes down then too (grace = reminder + the device's grace).
    public static func checkIn(_ settings: CheckInSettings, grace: Duration) -> (timeout: Duration, grace: Duration) {
        (clamped(settings.interval - settings.reminder), clamped(settings.reminder + grace))
    }

    /// Daily windows as a cron check: a tick at each window's start, and a grace of the longest
    /// window plus the device's grace, so a press in the window (or a late one) keeps the check up
    /// until the next window's end. Nil when the windows are not one cron expression (different
    /// minutes on different days: cron's fields multiply); the check is then a plain one whose
    /// timeout is the longest gap the schedule allows, and people are told later than the device
    /// shows overdue (docs/daily-life.md).
    public static func cron(_ daily: DailySchedule, zone: String, grace: Duration) -> (CronSchedule, grace: Duration)? {
        var starts: Set<[Int]> = []
        var longest = 0
        for weekday in Weekday.allCases {
            for window in daily.windows(on: weekday) {
                starts.insert([window.start.minuteOfDay % 60, window.start.minuteOfDay / 60, weekday.rawValue])
                longest = max(longest, window.end.minuteOfDay - window.start.minuteOfDay)
            }
        }
        let minutes = Set(starts.map { $0[0] }), hours = Set(starts.map { $0[1] }), days = Set(starts.map { $0[2] })
        guard !starts.isEmpty, starts.count == minutes.count * hours.count * days.count else { return nil }
        func field(_ values: Set<Int>, all: Int) -> String {
            values.count == all ? "*" : values.sorted().map(String.init).joined(separator: ",")
        }
        let expression = "\(field(minutes, all: 60)) \(field(hours, all: 24)) * * \(field(days, all: 7))"
        return (CronSchedule(expression: expression, timeZone: zone), clamped(.seconds(Int64(longest) * 60) + grace))
    }

    /// The checks a device with this plan wants, found by `<slugPrefix>-<role>`.
    public static func specs(plan: CheckInCheckPlan, heartbeat: Duration, slugPrefix: String) -> [CheckSpec] {
        let settings = plan.settings
        let label = slugPrefix == "lifesignal" ? "" : " (\(slugPrefix))"
        var checkIn = self.checkIn(settings, grace: plan.grace)
        let beat = self.heartbeat(period: heartbeat)
        var cron: CronSchedule?
        var deadlineWords = "every \(DurationText.humane(settings.interval))"
        if let daily = plan.daily {
            deadlineWords = "daily windows \(daily.description)"
            if let zone = daily.timeZone, let (schedule, grace) = Self.cron(daily, zone: zone, grace: plan.grace) {
                cron = schedule
                checkIn = (clamped(daily.longestGap), grace)
            } else {
                checkIn = (clamped(daily.longestGap), clamped(plan.grace))
            }
        }
        let interval = DurationText.humane(settings.interval), reminder = DurationText.humane(settings.reminder)
        return [
            CheckSpec(role: .checkIn, slug: "\(slugPrefix)-check-in", name: "LifeSignal check-in\(label)",
                      timeout: checkIn.timeout, grace: checkIn.grace,
                      description: plan.daily == nil && plan.grace == .zero
                        ? "DOWN: the person has not pressed the LifeSignal button by the deadline (every \(interval)); "
                            + "late from \(reminder) before it, when the button's amber light asks for a check-in. "
                            + "Made by the LifeSignal device, which keeps timeout and grace in step with its settings."
                        : "DOWN: the person has not pressed the LifeSignal button by the deadline (\(deadlineWords)) and its "
                            + "last-chance warning (\(DurationText.humane(plan.grace))). PAUSED: away mode. "
                            + "Made by the LifeSignal device, which keeps its schedule and grace in step with its settings.",
                      cron: cron, paused: plan.paused),
            CheckSpec(role: .heartbeat, slug: "\(slugPrefix)-heartbeat", name: "LifeSignal device online\(label)",
                      timeout: beat.timeout, grace: beat.grace,
                      description: "DOWN: the LifeSignal device has been offline or off for a while (no power, no network); "
                        + "check on the person another way. Made by the LifeSignal device."),
            CheckSpec(role: .alert, slug: "\(slugPrefix)-alert", name: "LifeSignal HELP ALERT\(label)",
                      timeout: alert.timeout, grace: alert.grace,
                      description: "DOWN: the person held the LifeSignal button to ask for help. Call them. "
                        + "Between alerts it shows new or paused. Made by the LifeSignal device."),
        ]
    }
}

/// What the device's check-in check must say besides the interval and reminder: the last-chance
/// grace, daily windows (a cron check, with the zone's name) and away mode (paused).
public struct CheckInCheckPlan: Hashable, Sendable {
    public var settings: CheckInSettings
    public var grace: Duration
    public var daily: DailySchedule?
    public var paused: Bool

    public init(settings: CheckInSettings, grace: Duration = .zero, daily: DailySchedule? = nil, paused: Bool = false) {
        self.settings = settings
        self.grace = grace
        self.daily = daily
        self.paused = paused
    }
}
