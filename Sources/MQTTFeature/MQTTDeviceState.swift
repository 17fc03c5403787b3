public import CheckInModels
public import LEDLanguage

/// What `<base>/state` says about the device (retained JSON, published whenever it changes). The
/// device feature derives it from its state; the LEDs' brief feedback (an acknowledgement, a long
/// press, identify) is left out, so the state changes only when the device's situation does.
public struct MQTTDeviceState: Hashable, Sendable {
    /// What the LEDs say, without the brief feedback: one of `indicatorOptions`.
    public var indicator: Indicator
    /// starting, never_checked_in, checked_in, reminder, overdue.
    public var phase: String
    public var lastCheckIn: WallTime?
    public var lastCheckInSource: CheckInSource?
    /// In whole seconds: the projection moves by microseconds each time it is taken.
    public var nextDeadline: WallTime?
    /// Help was asked for and not yet delivered, or was just delivered (alert_sending … alert_delivered).
    public var helpAlert: Bool
    public var pingPending: Bool
    /// The device cannot keep its word (the LEDs show `fault` under any feedback).
    public var fault: Bool
    /// The kinds of the conditions that hold (docs/faults.md), MQTT's own left out.
    public var conditions: [String]
    /// The oldest check-in the backend has not acknowledged; nil when none waits or no uplink.
    public var oldestNotUploaded: WallTime?
    /// Away mode runs (no reminder, no overdue) until `awayUntil`.
    public var away: Bool
    public var awayUntil: WallTime?
    /// The mains-present line says the mains power is off (`[power] mains_line`).
    public var onBattery: Bool
    /// A watcher said "I'm on it" (`on_it`) since the last check-in: who.
    public var onIt: String?

    public init(indicator: Indicator, phase: String, lastCheckIn: WallTime? = nil, lastCheckInSource: CheckInSource? = nil,
                nextDeadline: WallTime? = nil, helpAlert: Bool = false, pingPending: Bool = false, fault: Bool = false,
                conditions: [String] = [], oldestNotUploaded: WallTime? = nil, awayUntil: WallTime? = nil, onBattery: Bool = false,
                onIt: String? = nil) {
        self.indicator = indicator
        self.phase = phase
        self.lastCheckIn = lastCheckIn
        self.lastCheckInSource = lastCheckInSource
        self.nextDeadline = nextDeadline.map { deadline in
            let micros = deadline.microsecondsSinceEpoch
            return WallTime(microsecondsSinceEpoch: micros - ((micros % 1_000_000) + 1_000_000) % 1_000_000)
        }
        self.helpAlert = helpAlert
        self.pingPending = pingPending
        self.fault = fault
        self.conditions = conditions
        self.oldestNotUploaded = oldestNotUploaded
        self.away = awayUntil != nil
        self.awayUntil = awayUntil
        self.onBattery = onBattery
        self.onIt = onIt
    }

    public var overdue: Bool { phase == "overdue" }

    /// The values `indicator` can have: every indicator but the brief feedback.
    public static let indicatorOptions: [Indicator] = Indicator.allCases.filter { ![.acknowledged, .longPress, .identify].contains($0) }

    /// The JSON published on `<base>/state` (docs/mqtt.md lists every field).
    public var json: JSONValue {
        .object([
            ("indicator", .string(indicator.rawValue)),
            ("phase", .string(phase)),
            ("overdue", .bool(overdue)),
            ("last_check_in", .string(orNull: lastCheckIn?.iso8601)),
            ("last_check_in_source", .string(orNull: lastCheckInSource?.rawValue)),
            ("next_deadline", .string(orNull: nextDeadline?.iso8601)),
            ("help_alert", .bool(helpAlert)),
            ("ping_pending", .bool(pingPending)),
            ("fault", .bool(fault)),
            ("conditions", .array(conditions.map { .string($0) })),
            ("oldest_not_uploaded", .string(orNull: oldestNotUploaded?.iso8601)),
            ("away", .bool(away)),
            ("away_until", .string(orNull: awayUntil?.iso8601)),
            ("on_battery", .bool(onBattery)),
            ("on_it", .string(orNull: onIt)),
        ])
    }
}
