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
        let label = slugPrefix == "lifesignal" ? "" : " (\(slugPrefix))"
        let checkIn = self.checkIn(settings), beat = self.heartbeat(period: heartbeat)
        let interval = DurationText.humane(settings.interval), reminder = DurationText.humane(settings.reminder)
        return [
            CheckSpec(role: .checkIn, slug: "\(slugPrefix)-check-in", name: "LifeSignal check-in\(label)",
                      timeout: checkIn.timeout, grace: checkIn.grace,
                      description: "DOWN: the person has not pressed the LifeSignal button by the deadline (every \(interval)); "
                        + "late from \(reminder) before it, when the button's amber light asks for a check-in. "
                        + "Made by the LifeSignal device, which keeps timeout and grace in step with its settings."),
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
