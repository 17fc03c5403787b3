import CheckInModels
import ConfigFile

/// `[alert]`: the help alert a long press sends after a cancel window.
public struct AlertConfiguration: Hashable, Sendable {
    /// Whether a long press asks for help at all (false: it only shows the long-press pattern).
    /// By default it does exactly when something can deliver a help alert (`[uplink]`, or a
    /// healthchecks alert check): a help request nobody can receive would only be a fault nobody
    /// can clear.
    public var enabled: Bool
    /// How long a press can still cancel the alert after the long press (1s…60s).
    public var cancelWindow: Duration
    /// How long the delivered pattern shows once the backend acknowledged the alert (1s…1h).
    public var deliveredDisplay: Duration

    public init(enabled: Bool = true, cancelWindow: Duration = .seconds(5), deliveredDisplay: Duration = .seconds(30)) {
        self.enabled = enabled
        self.cancelWindow = cancelWindow
        self.deliveredDisplay = deliveredDisplay
    }
}

extension ConfigLoader {
    /// `canDeliver`: a target that takes help alerts is configured.
    mutating func readAlert(_ table: ConfigTable?, canDeliver: Bool) -> AlertConfiguration {
        let asked = optionalValue(table, "alert", "enabled", ValueRules.bool)
        if asked == true, !canDeliver, let entry = table?["enabled"] {
            report("alert.enabled", atEntry: entry,
                   "a long press would ask for help, but nothing can deliver a help alert: configure [healthchecks] "
                       + "alert_url (or api_key_file) or [uplink], or set enabled = false (a long press then only shows "
                       + "its pattern)")
        }
        return AlertConfiguration(
            enabled: asked ?? canDeliver,
            cancelWindow: value(table, "alert", "cancel_window", .seconds(5),
                                ValueRules.duration(in: .seconds(1) ... .seconds(60))),
            deliveredDisplay: value(table, "alert", "delivered_display", .seconds(30),
                                    ValueRules.duration(in: .seconds(1) ... .seconds(3600)))
        )
    }
}
