/// The daemon's answer to one request. Exactly one of the payload fields is set when `ok`;
/// `error` says what went wrong otherwise.
public struct ControlResponse: Codable, Hashable, Sendable {
    public var ok: Bool
    public var error: String?
    public var status: StatusReport?
    public var checkIn: CheckInReport?
    public var history: [CheckInReport]?
    public var settings: SettingsReport?
    public var queue: QueueReport?
    public var notifications: NotificationsReport?
    public var pings: PingsReport?
    /// `away`, `away-end`: away mode as it now is.
    public var away: AwayReport? = nil
    /// `away-list`: the away periods, newest first.
    public var awayPeriods: [AwayPeriodReport]? = nil
    /// `dependents` and its subcommands: the watcher's dependents as they now are.
    public var dependents: DependentsReport? = nil
    /// `responders` and its subcommands: the person's responders as they now are.
    public var responders: RespondersReport? = nil

    public init(ok: Bool = true, error: String? = nil, status: StatusReport? = nil, checkIn: CheckInReport? = nil,
                history: [CheckInReport]? = nil, settings: SettingsReport? = nil, queue: QueueReport? = nil,
                notifications: NotificationsReport? = nil, pings: PingsReport? = nil) {
        self.ok = ok
        self.error = error
        self.status = status
        self.checkIn = checkIn
        self.history = history
        self.settings = settings
        self.queue = queue
        self.notifications = notifications
        self.pings = pings
    }

    public static func failure(_ message: String) -> ControlResponse {
        ControlResponse(ok: false, error: message)
    }
}

/// Everything `lifesignalctl status` shows.
public struct StatusReport: Codable, Hashable, Sendable {
    /// never_checked_in, checked_in, reminder, overdue, starting.
    public var phase: String
    /// What the LEDs show right now (phase, fault, acknowledged, long_press …).
    public var indicator: String
    public var lastCheckIn: CheckInReport?
    /// ISO 8601 UTC.
    public var deadline: String?
    /// Negative once overdue.
    public var secondsLeft: Int64?
    public var settings: SettingsReport
    public var leds: [LEDReport]
    /// Check-ins stored but not yet uploaded.
    public var queueDepth: Int
    public var error: String?
    public var isCheckingIn: Bool
    public var button: String
    public var gpioBackend: String
    public var wallClockSynchronized: Bool
    /// ISO 8601 UTC, the daemon's wall clock when it answered.
    public var now: String
    /// True when the last check-in was on an earlier boot and the wall clock cannot be trusted yet:
    /// the time since it is only a lower bound, `secondsLeft` the most that can be left, and the
    /// phase at most `reminder` until the clock is synchronised (docs/time.md).
    public var elapsedTimeUnknown: Bool?
    /// The upload to the backend; nil on an offline device (no `[uplink]`).
    public var uplink: UplinkReport?
    /// Responders' pings waiting for a press; nil when there are none and no uplink.
    public var pings: PingsReport?
    /// The help alert (nil from a daemon that predates alerts).
    public var alert: AlertReport?
    /// When the oldest check-in the backend has not acknowledged was made (ISO 8601 UTC), as the
    /// uploader last saw its queue; nil when none waits or there is no uplink.
    public var oldestNotUploaded: String?
    /// True when that check-in has waited longer than `[uplink] stale_after` (the LEDs show it).
    public var uploadStale: Bool?
    /// The pings to a healthchecks.io-compatible check; nil without `[healthchecks]`.
    public var healthchecks: UplinkReport? = nil
    /// Check-ins waiting for the healthchecks check-in check; nil without one.
    public var healthchecksQueueDepth: Int? = nil
    /// Help alerts to the healthchecks alert check; nil without one.
    public var healthchecksAlert: UplinkReport? = nil
    /// The device's own healthchecks checks and whether they are in step; nil without `api_key_file`.
    public var healthchecksChecks: ChecksReport? = nil
    /// Everything that stops the device keeping its word right now, with what to do about it
    /// (faults make the LEDs show `fault`). `error` is the first fault's message.
    public var conditions: [ConditionReport]? = nil
    /// Messages that do not stop the device (a refused setting, a damaged store moved aside),
    /// until `lifesignalctl dismiss-error`.
    public var messages: [String]? = nil
    /// Away mode; nil from a daemon that predates it.
    public var away: AwayReport? = nil
    /// How deadlines are set (interval or daily windows), and the last-chance grace.
    public var schedule: ScheduleReport? = nil
    /// The mains power and the device's recent events; nil from a daemon that predates them.
    public var power: PowerReport? = nil
    /// The buzzer; nil without `[buzzer]`.
    public var buzzer: BuzzerReport? = nil
    /// The MQTT broker connection; nil without `[mqtt]`.
    public var mqtt: MQTTReport? = nil
    /// person, watcher, both (nil from a daemon that predates watchers).
    public var role: String? = nil
    /// A watcher said "I'm on it" since the last check-in: who.
    public var helpComing: String? = nil
    /// Who is told of a missed check-in and of a help alert (the line `lifesignalctl responders`
    /// ends with); nil on a watcher.
    public var reach: String? = nil
    /// A watcher's dependents; nil on a person's device.
    public var dependents: DependentsReport? = nil

    public init(phase: String, indicator: String, lastCheckIn: CheckInReport?, deadline: String?, secondsLeft: Int64?,
                settings: SettingsReport, leds: [LEDReport], queueDepth: Int, error: String?, isCheckingIn: Bool,
                button: String, gpioBackend: String, wallClockSynchronized: Bool, now: String,
                elapsedTimeUnknown: Bool? = nil, uplink: UplinkReport? = nil, pings: PingsReport? = nil,
                alert: AlertReport? = nil, oldestNotUploaded: String? = nil, uploadStale: Bool? = nil) {
        self.alert = alert
        self.oldestNotUploaded = oldestNotUploaded
        self.uploadStale = uploadStale
        self.phase = phase
        self.indicator = indicator
        self.lastCheckIn = lastCheckIn
        self.deadline = deadline
        self.secondsLeft = secondsLeft
        self.settings = settings
        self.leds = leds
        self.queueDepth = queueDepth
        self.error = error
        self.isCheckingIn = isCheckingIn
        self.button = button
        self.gpioBackend = gpioBackend
        self.wallClockSynchronized = wallClockSynchronized
        self.now = now
        self.elapsedTimeUnknown = elapsedTimeUnknown
        self.uplink = uplink
        self.pings = pings
    }
}

/// One condition in `StatusReport`.
public struct ConditionReport: Codable, Hashable, Sendable {
    /// store_cannot_write, store_file_moved, store_schema_refused, store_cannot_open, gpio_unavailable,
    /// time_unknown, alert_not_stored, alert_not_sent, upload_refused.
    public var kind: String
    public var message: String
    /// What a person can do about it.
    public var advice: String
    /// The LEDs show `fault` while it holds.
    public var fault: Bool
    /// ISO 8601 UTC, where known.
    public var since: String?

    public init(kind: String, message: String, advice: String, fault: Bool, since: String?) {
        self.kind = kind
        self.message = message
        self.advice = advice
        self.fault = fault
        self.since = since
    }
}

/// The help alert in `StatusReport`.
public struct AlertReport: Codable, Hashable, Sendable {
    /// off, idle, cancel_window, storing, sending, not_sent (stored, but no uplink or refused), delivered.
    public var state: String
    /// Seconds until the cancel window ends (cancel_window only).
    public var cancelWindowSecondsLeft: Int64?
    /// Alerts stored on the device and not yet acknowledged by the backend (-1: the store could not be read).
    public var waiting: Int
    /// False when no uplink is configured: an alert cannot reach anyone.
    public var uplinkConfigured: Bool
    /// How sending the alerts is going; nil without an uplink.
    public var uplink: UplinkReport?
    /// What takes help alerts: `healthchecks`, `backend`; empty when nothing can.
    public var targets: [String]? = nil

    public init(state: String, cancelWindowSecondsLeft: Int64?, waiting: Int, uplinkConfigured: Bool, uplink: UplinkReport?) {
        self.state = state
        self.cancelWindowSecondsLeft = cancelWindowSecondsLeft
        self.waiting = waiting
        self.uplinkConfigured = uplinkConfigured
        self.uplink = uplink
    }
}

public struct CheckInReport: Codable, Hashable, Sendable {
    public var id: String
    /// ISO 8601 UTC wall-clock time of the press.
    public var time: String
    public var wallClockSynchronized: Bool
    public var source: String
    /// The backend acknowledged it (false also on a device without a backend: see `deliveries`).
    public var uploaded: Bool
    public var bootID: String
    /// Where it stands with each configured target (`history`), in the order `status` lists them;
    /// nil or empty when nothing is configured to take check-ins.
    public var deliveries: [DeliveryReport]? = nil

    public init(id: String, time: String, wallClockSynchronized: Bool, source: String, uploaded: Bool, bootID: String) {
        self.id = id
        self.time = time
        self.wallClockSynchronized = wallClockSynchronized
        self.source = source
        self.uploaded = uploaded
        self.bootID = bootID
    }
}

/// One check-in and one target: the backend (`uploaded`, `queued`, `refused`) or the healthchecks
/// check-in check (`pinged`, `waiting`, `refused`, `not_sent`: made before the check was configured).
public struct DeliveryReport: Codable, Hashable, Sendable {
    /// `backend` or `healthchecks`.
    public var target: String
    public var state: String

    public init(target: String, state: String) {
        self.target = target
        self.state = state
    }
}

public struct SettingsReport: Codable, Hashable, Sendable {
    /// Durations as text ("24h") and in seconds.
    public var interval: String
    public var reminder: String
    public var intervalSeconds: Int64
    public var reminderSeconds: Int64
    public var version: Int64
    public var offeredIntervals: [String]
    public var offeredReminders: [String]

    public init(interval: String, reminder: String, intervalSeconds: Int64, reminderSeconds: Int64, version: Int64,
                offeredIntervals: [String], offeredReminders: [String]) {
        self.interval = interval
        self.reminder = reminder
        self.intervalSeconds = intervalSeconds
        self.reminderSeconds = reminderSeconds
        self.version = version
        self.offeredIntervals = offeredIntervals
        self.offeredReminders = offeredReminders
    }
}

/// The device's own healthchecks checks (`[healthchecks] api_key_file`).
public struct ChecksReport: Codable, Hashable, Sendable {
    public var site: String
    /// idle, syncing, waiting_to_retry, refused.
    public var state: String
    /// The checks have the timeout and grace the settings ask for.
    public var inStep: Bool
    public var lastError: String?
    public var lastSuccess: String?
    public var checks: [CheckReport]

    public init(site: String, state: String, inStep: Bool, lastError: String?, lastSuccess: String?, checks: [CheckReport]) {
        self.site = site
        self.state = state
        self.inStep = inStep
        self.lastError = lastError
        self.lastSuccess = lastSuccess
        self.checks = checks
    }
}

public struct CheckReport: Codable, Hashable, Sendable {
    public var slug: String
    /// healthchecks' status: new, up, grace, down, paused.
    public var status: String
    public var timeoutSeconds: Int64
    public var graceSeconds: Int64

    public init(slug: String, status: String, timeoutSeconds: Int64, graceSeconds: Int64) {
        self.slug = slug
        self.status = status
        self.timeoutSeconds = timeoutSeconds
        self.graceSeconds = graceSeconds
    }
}

public struct LEDReport: Codable, Hashable, Sendable {
    public var name: String
    public var colour: String
    public var on: Bool
    /// What it plays ("on", "250ms on, 250ms off"); nil from a daemon that predates it.
    public var pattern: String? = nil

    public init(name: String, colour: String, on: Bool) {
        self.name = name
        self.colour = colour
        self.on = on
    }
}
