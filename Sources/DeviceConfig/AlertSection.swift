import CheckInModels
import ConfigFile

/// `[alert]`: the help alert a long press sends after a cancel window.
public struct AlertConfiguration: Hashable, Sendable {
    /// Whether a long press asks for help at all (false: it only shows the long-press pattern).
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
    mutating func readAlert(_ table: ConfigTable?) -> AlertConfiguration {
        AlertConfiguration(
            enabled: value(table, "alert", "enabled", true, ValueRules.bool),
            cancelWindow: value(table, "alert", "cancel_window", .seconds(5),
                                ValueRules.duration(in: .seconds(1) ... .seconds(60))),
            deliveredDisplay: value(table, "alert", "delivered_display", .seconds(30),
                                    ValueRules.duration(in: .seconds(1) ... .seconds(3600)))
        )
    }
}
