import ConfigFile

/// `[healthchecks]`: a healthchecks.io-compatible instance (hosted or self-hosted) that gets a
/// ping for every check-in and, optionally, a device heartbeat on a second check
/// (docs/healthchecks.md). Independent of `[uplink]`: either, both or neither may be configured.
public struct HealthchecksConfiguration: Hashable, Sendable {
    /// The check-in check's ping URL: `<base>/<uuid>` or `<base>/<ping-key>/<slug>`.
    public var checkInURL: String?
    /// The heartbeat check's ping URL, pinged every `heartbeat`; nil = no heartbeat check.
    public var heartbeatURL: String?
    /// The heartbeat check's period (1s…24h).
    public var heartbeat: Duration
    /// Bound on each ping, connecting included (1s…5m).
    public var timeout: Duration
    /// The longest wait between retries of a check-in ping (1s…24h).
    public var retryMax: Duration
    /// A check-in pressed longer ago than this when its ping finally goes out is sent to the check's
    /// `/log` endpoint (recorded, check state unchanged) instead of as a success ping, so a backlog
    /// delivered after an outage cannot make an overdue check look fresh (1m…7d).
    public var lateAfter: Duration

    public init(checkInURL: String?, heartbeatURL: String? = nil, heartbeat: Duration = UplinkConfiguration.defaultHeartbeat,
                timeout: Duration = .seconds(30), retryMax: Duration = .seconds(900),
                lateAfter: Duration = HealthchecksConfiguration.defaultLateAfter) {
        self.checkInURL = checkInURL
        self.heartbeatURL = heartbeatURL
        self.heartbeat = heartbeat
        self.timeout = timeout
        self.retryMax = retryMax
        self.lateAfter = lateAfter
    }

    public static let defaultLateAfter = Duration.seconds(600)
}

extension ConfigLoader {
    /// `[healthchecks]`: nil when the table is absent or names neither URL.
    mutating func readHealthchecks(_ table: ConfigTable?) -> HealthchecksConfiguration? {
        guard let table else { return nil }
        let rule = ValueRules.secretBearingURL("a healthchecks ping URL", example: "https://hc-ping.com/<uuid>",
                                               secret: "the check's ping URL (anyone who has it can ping the check)")
        let checkInURL = optionalValue(table, "healthchecks", "check_in_url", rule)
        let heartbeatURL = optionalValue(table, "healthchecks", "heartbeat_url", rule)
        let heartbeat = value(table, "healthchecks", "heartbeat", UplinkConfiguration.defaultHeartbeat,
                              ValueRules.duration(in: UplinkConfiguration.heartbeatRange))
        let timeout = value(table, "healthchecks", "timeout", .seconds(30), ValueRules.duration(in: .seconds(1) ... .seconds(300)))
        let retryMax = value(table, "healthchecks", "retry_max", .seconds(900),
                             ValueRules.duration(in: .seconds(1) ... .seconds(86_400)))
        let lateAfter = value(table, "healthchecks", "late_after", HealthchecksConfiguration.defaultLateAfter,
                              ValueRules.duration(in: .seconds(60) ... .seconds(7 * 86_400)))
        guard table["check_in_url"] != nil || table["heartbeat_url"] != nil else {
            if let first = table.entries.first {
                report("healthchecks.check_in_url", atEntry: first, "[healthchecks] needs check_in_url and/or heartbeat_url "
                       + "(e.g. \"https://hc-ping.com/<uuid>\"); remove the table to use no healthchecks instance")
            }
            return nil
        }
        guard table["check_in_url"] == nil || checkInURL != nil, table["heartbeat_url"] == nil || heartbeatURL != nil else {
            return nil
        }
        return HealthchecksConfiguration(checkInURL: checkInURL, heartbeatURL: heartbeatURL, heartbeat: heartbeat,
                                         timeout: timeout, retryMax: retryMax, lateAfter: lateAfter)
    }
}
