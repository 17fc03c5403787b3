public import CheckInModels
public import LEDLanguage
public import CheckInStoreClient

extension CheckInFeature {
    public struct State: Equatable, Sendable {
        // MARK: Settings
        public var settings: CheckInSettings
        public var settingsVersion: Int64 = 0
        /// The settings the config file asks for, if it sets any.
        public var configuredSettings: CheckInSettings?
        /// The config settings last applied (stored), so an unedited config does not override the CLI.
        public var appliedFromConfig: CheckInSettings?
        public var policy: SettingsPolicy
        public var hasLoadedSettings = false

        // MARK: Check-ins
        /// Most recent check-ins, newest first (at most `historyWindow`).
        public var history: [CheckInRecord] = []
        public var hasLoadedHistory = false
        public var isLoadingHistory = false
        /// A durable write is in progress; further presses are not further check-ins.
        public var isCheckingIn = false

        // MARK: Pings (the app's PingFeature)
        /// Responders' pings the user has not answered yet, oldest first.
        public var pendingPings: [PendingPing] = []
        /// The responses being written with the check-in in progress; the pings stay pending until
        /// that write has succeeded.
        public var pingResponsesBeingStored: [PingResponse] = []

        // MARK: Countdown and feedback
        public var phase: Phase = .starting
        /// The last check-in was on an earlier boot and the wall clock (then or now) is not trusted:
        /// the time since is only known as a lower bound, so the phase is at most `reminder`
        /// until the clock is synchronised (docs/time.md).
        public var elapsedTimeUnknown = false
        public var feedback: Feedback?
        public var button: ButtonState = .released
        public var isRunning = false
        /// Settings that apply but could not be saved; saved again once the store can write.
        public var unsavedSettings: StoredSettings?
        /// The help alert (off unless `alert.settings` is set).
        public var alert = AlertState()
        /// Check-ins waiting for the backend, and whether they have waited too long.
        public var uploadBacklog = UploadBacklog()

        // MARK: Timings (from the config)
        public var acknowledgementDuration: Duration
        public var longPressDuration: Duration

        // MARK: Daily life: away mode, daily windows, the last-chance warning, quiet hours
        /// `[check_in] schedule`: a rolling interval (the default) or daily windows.
        public var schedule: CheckInSchedule = .interval
        /// `[check_in] grace`: the last-chance warning between the deadline and overdue.
        public var grace: Duration = .zero
        /// Away mode: the latest away period (on now, or the one the countdown starts after).
        public var away = AwayState()
        /// `[check_in] time_zone` (nil: the system's): the local clock of the windows and quiet hours.
        public var timeZone: String?
        /// `[quiet_hours]`: reminder beeps are silent while they hold.
        public var quietHours: QuietHours?
        public var isQuietNow = false
        /// Daily windows and quiet hours: the last reading of this boot with a synchronised wall
        /// clock. The local time is projected from it on monotonic time while the flag is down
        /// later; without one this boot the local time is unknown (docs/time.md).
        public var trustedWall: DeviceInstant?
        /// Daily windows: the deadline as last evaluated (the current window's end, the missed
        /// one's, or the next one's); nil while the local time is unknown.
        public var windowDeadline: WallTime?
        /// Daily windows with no local time known (no synchronised clock this boot): the device
        /// asks for a press (reminder) and shows `time_unknown`, never "checked in".
        public var localTimeUnknown = false

        public init(
            settings: CheckInSettings = .default,
            configuredSettings: CheckInSettings? = nil,
            policy: SettingsPolicy = .standard,
            acknowledgementDuration: Duration = .milliseconds(1500),
            longPressDuration: Duration = .seconds(3)
        ) {
            self.settings = configuredSettings ?? settings
            self.configuredSettings = configuredSettings
            self.policy = policy
            self.acknowledgementDuration = acknowledgementDuration
            self.longPressDuration = longPressDuration
        }

        public var lastCheckIn: CheckInRecord? { history.first }

        /// How long the identify pattern shows.
        public static let identifyDuration = Duration.seconds(10)

        /// The deadline as of `now`: the one projection of the countdown (the phase, `status` and
        /// the systemd status line all use it). Exact within a boot (monotonic) and across a reboot
        /// with trusted wall clocks; otherwise only a lower bound of the elapsed time is known, and
        /// `remaining` is the most that can be left (docs/time.md). Nil before the first check-in.
        public func countdown(at now: DeviceInstant) -> Countdown? {
            if case .away = phase { return nil }
            if let daily = schedule.daily { return windowCountdown(daily, at: now) }
            guard let elapsed = elapsedSinceOrigin(at: now) else { return nil }
            let remaining = settings.interval - max(elapsed.lowerBound, .zero)
            return Countdown(deadline: now.wall + remaining, remaining: remaining)
        }

        /// What the LEDs show, given whether the device has a fault (a condition that stops it
        /// keeping its word: the device feature knows them all).
        ///
        /// Feedback wins for its moment (a check-in's, then the alert's), then a fault, then an
        /// alert being sent, then overdue, then the last-chance warning, then a pending ping, then the phase: the device never
        /// shows "checked in" while it cannot keep its word. Check-ins not uploaded for too long mark
        /// the checked-in and reminder patterns, never overdue or a fault.
        public func indicator(fault: Bool) -> Indicator {
            switch feedback {
            case .acknowledged: return .acknowledged
            case .longPress: return .longPress
            case .identify, nil: break
            }
            // The cancel window and "delivered" are moments; "sending" can last for hours offline,
            // so a fault (the device itself is broken) wins over it.
            if let alertIndicator = alert.indicator, alertIndicator != .alertSending { return alertIndicator }
            // Asked for by someone looking for the device, for a few seconds: over anything but a
            // press's own feedback and a help alert's moments.
            if feedback == .identify { return .identify }
            if fault { return .fault }
            if alert.indicator == .alertSending { return .alertSending }
            if case .overdue = phase { return .overdue }
            if case .lastChance = phase { return .lastChance }
            if !pendingPings.isEmpty { return .pingPending }
            switch phase {
            case .starting: return .starting
            case .neverCheckedIn: return .neverCheckedIn
            case .checkedIn: return uploadBacklog.isStale ? .checkedInNotUploaded : .checkedIn
            case .reminder: return uploadBacklog.isStale ? .reminderNotUploaded : .reminder
            case .lastChance: return .lastChance
            case .overdue: return .overdue
            case .away: return .away
            }
        }
    }
}
