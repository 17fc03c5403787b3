/// Whether the configuration lets the device tell a person anything: a missed check-in, a
/// request for help. Said at start-up (the log) and by `lifesignalctl doctor`, so a device that
/// can reach nobody never looks as if it could.
public struct ReachFinding: Hashable, Sendable {
    public enum Severity: String, Hashable, Sendable {
        /// Nobody is told of a missed check-in: the device's main promise cannot be kept.
        case problem
        /// The help button reaches nobody; check-ins are still reported.
        case warning
    }

    /// `notify` or `help button`.
    public var check: String
    public var message: String
    public var fix: String
    public var severity: Severity
}

extension DeviceConfiguration {
    /// What the configuration cannot reach, most serious first; empty when someone is told of a
    /// missed check-in and of a request for help.
    public var reachFindings: [ReachFinding] {
        var findings: [ReachFinding] = []
        // A watcher has no countdown and no help button of its own: nobody needs telling.
        guard device.role.hasCountdown else { return findings }
        if !canReportMissedCheckIns {
            findings.append(ReachFinding(
                check: "notify", message: "nobody is told when a check-in is missed: there is no healthchecks check-in check "
                    + "([healthchecks] api_key_file or check_in_url), no [uplink] and no [mqtt]; the LEDs still count down on the device",
                fix: "set up a healthchecks project and put its API key in [healthchecks] api_key_file "
                    + "(docs/guide-healthchecks.md), then restart: sudo systemctl restart lifesignald",
                severity: .problem))
        }
        if !alert.enabled {
            let why = canDeliverAlerts
                ? "help alerts are off ([alert] enabled = false)"
                : "nothing can deliver a help alert (no [healthchecks] alert_url or api_key_file, no [uplink])"
            // Over MQTT a long press is an event a Home Assistant automation may act on, but nothing
            // confirms that anyone was told, so it is not a help alert.
            let shown = mqtt == nil ? "it only shows the long_press pattern"
                : "it shows the long_press pattern and is published to the MQTT broker as an event, which only a Home "
                    + "Assistant automation of your own turns into a message"
            findings.append(ReachFinding(
                check: "help button", message: "a long press reaches nobody: \(why); \(shown)",
                fix: canDeliverAlerts ? "set [alert] enabled = true if the person should be able to ask for help"
                    : "set [healthchecks] api_key_file (the device makes an alert check) or alert_url (docs/guide-healthchecks.md)",
                severity: .warning))
        }
        return findings
    }
}
