import CheckInModels
import ConfigFile

/// `[healthchecks]`: a healthchecks.io-compatible instance (hosted or self-hosted) that gets a
/// ping for every check-in and, optionally, a device heartbeat on a second check and the help
/// alert on a third (docs/healthchecks.md). Independent of `[uplink]`: either, both or neither may
/// be configured. The checks are made by hand (their ping URLs here) or, with a management API key
/// (`management`), created and kept in step by the device itself.
public struct HealthchecksConfiguration: Hashable, Sendable {
    /// The check-in check's ping URL: `<base>/<uuid>` or `<base>/<ping-key>/<slug>`.
    public var checkInURL: String?
    /// The heartbeat check's ping URL, pinged every `heartbeat`; nil = no heartbeat check.
    public var heartbeatURL: String?
    /// The help-alert check's ping URL: a help alert is a `fail` signal to it; nil = none.
    public var alertURL: String?
    /// `api_key_file`: the device creates and updates its own checks; nil = hand-made checks.
    public var management: HealthchecksManagement?
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
                lateAfter: Duration = HealthchecksConfiguration.defaultLateAfter, alertURL: String? = nil,
                management: HealthchecksManagement? = nil) {
        self.checkInURL = checkInURL
        self.heartbeatURL = heartbeatURL
        self.alertURL = alertURL
        self.management = management
        self.heartbeat = heartbeat
        self.timeout = timeout
        self.retryMax = retryMax
        self.lateAfter = lateAfter
    }

    public static let defaultLateAfter = Duration.seconds(600)

    /// A check gets a ping for every check-in (a hand-made one, or the device's own).
    public var hasCheckInCheck: Bool { checkInURL != nil || management != nil }
    /// A check gets the device's heartbeat.
    public var hasHeartbeatCheck: Bool { heartbeatURL != nil || management != nil }
    /// A check gets help alerts as `fail` signals.
    public var hasAlertCheck: Bool { alertURL != nil || management != nil }
}

/// `[healthchecks] api_key_file` and what goes with it: the device finds its checks by slug
/// (`<slug_prefix>-check-in`, `-heartbeat`, `-alert`), creates the missing ones and keeps their
/// timeout and grace in step with its settings (docs/healthchecks.md).
public struct HealthchecksManagement: Hashable, Sendable {
    /// The instance's site, whose `/api/v3/` is the management API (`https://healthchecks.io`).
    public var apiURL: String
    /// A file holding a read-write API key of the project; mode rules as for the uplink token.
    public var apiKeyFile: String
    /// The first part of the checks' slugs, so several devices can share one project.
    public var slugPrefix: String

    public init(apiURL: String = HealthchecksManagement.defaultAPIURL, apiKeyFile: String,
                slugPrefix: String = HealthchecksManagement.defaultSlugPrefix) {
        self.apiURL = apiURL
        self.apiKeyFile = apiKeyFile
        self.slugPrefix = slugPrefix
    }

    public static let defaultAPIURL = "https://healthchecks.io"
    public static let defaultSlugPrefix = "lifesignal"
}

extension ConfigLoader {
    /// `[healthchecks]`: nil when the table is absent or names no check.
    mutating func readHealthchecks(_ table: ConfigTable?) -> HealthchecksConfiguration? {
        guard let table else { return nil }
        let rule = ValueRules.pingURL(example: "https://hc-ping.com/<uuid>")
        let checkInURL = optionalValue(table, "healthchecks", "check_in_url", rule)
        let heartbeatURL = optionalValue(table, "healthchecks", "heartbeat_url", rule)
        let alertURL = optionalValue(table, "healthchecks", "alert_url", rule)
        let apiKeyFile = optionalValue(table, "healthchecks", "api_key_file", ValueRules.absolutePath("the healthchecks API key file"))
        let apiURL = optionalValue(table, "healthchecks", "api_url", ValueRules.secretBearingURL(
            "the healthchecks site", example: HealthchecksManagement.defaultAPIURL, secret: "the API key"))
        let slugPrefix = optionalValue(table, "healthchecks", "slug_prefix", ValueRules.slugPrefix)
        let heartbeat = value(table, "healthchecks", "heartbeat", UplinkConfiguration.defaultHeartbeat,
                              ValueRules.duration(in: UplinkConfiguration.heartbeatRange))
        let timeout = value(table, "healthchecks", "timeout", .seconds(30), ValueRules.duration(in: .seconds(1) ... .seconds(300)))
        let retryMax = value(table, "healthchecks", "retry_max", .seconds(900),
                             ValueRules.duration(in: .seconds(1) ... .seconds(86_400)))
        let lateAfter = value(table, "healthchecks", "late_after", HealthchecksConfiguration.defaultLateAfter,
                              ValueRules.duration(in: .seconds(60) ... .seconds(7 * 86_400)))
        let urlKeys = ["check_in_url", "heartbeat_url", "alert_url"]
        guard urlKeys.contains(where: { table[$0] != nil }) || table["api_key_file"] != nil else {
            if let first = table.entries.first {
                report("healthchecks.check_in_url", atEntry: first, "[healthchecks] needs api_key_file (the device makes its "
                       + "own checks) or check_in_url, heartbeat_url and/or alert_url (e.g. \"https://hc-ping.com/<uuid>\"); "
                       + "remove the table to use no healthchecks instance")
            }
            return nil
        }
        // With a key the device makes its own checks: a hand-made URL beside it would be a second
        // check of the same kind that nothing keeps in step.
        if table["api_key_file"] != nil {
            for key in urlKeys {
                guard let entry = table[key] else { continue }
                report("healthchecks." + key, atEntry: entry, "with api_key_file the device creates and finds its own checks "
                       + "(slugs \(slugPrefix ?? HealthchecksManagement.defaultSlugPrefix)-check-in, -heartbeat, -alert); "
                       + "remove \(key), or remove api_key_file to use hand-made checks")
            }
        } else {
            for key in ["api_url", "slug_prefix"] {
                guard let entry = table[key] else { continue }
                report("healthchecks." + key, atEntry: entry, "\(key) only matters with api_key_file (the device making its "
                       + "own checks); add api_key_file = \"/etc/lifesignal/healthchecks-api-key\" or remove \(key)")
            }
        }
        guard urlKeys.allSatisfy({ table[$0] == nil }) || table["api_key_file"] == nil,
              table["check_in_url"] == nil || checkInURL != nil, table["heartbeat_url"] == nil || heartbeatURL != nil,
              table["alert_url"] == nil || alertURL != nil, table["api_key_file"] == nil || apiKeyFile != nil,
              table["api_url"] == nil || apiURL != nil, table["slug_prefix"] == nil || slugPrefix != nil,
              table["api_key_file"] != nil || (table["api_url"] == nil && table["slug_prefix"] == nil) else {
            return nil
        }
        let management = apiKeyFile.map {
            HealthchecksManagement(apiURL: apiURL ?? HealthchecksManagement.defaultAPIURL, apiKeyFile: $0,
                                   slugPrefix: slugPrefix ?? HealthchecksManagement.defaultSlugPrefix)
        }
        return HealthchecksConfiguration(checkInURL: checkInURL, heartbeatURL: heartbeatURL, heartbeat: heartbeat,
                                         timeout: timeout, retryMax: retryMax, lateAfter: lateAfter, alertURL: alertURL,
                                         management: management)
    }
}

extension ValueRules {
    /// A healthchecks ping URL: plain http only to this machine (the URL is a secret), and only the
    /// shape of a ping (`PingURLShape`).
    static func pingURL(example: String) -> Rule<String> {
        { value in
            guard let text = value.stringValue else {
                return .failure(Refusal("expected a healthchecks ping URL in quotes, e.g. \"\(example)\"; found \(describe(value))"))
            }
            return PingURLShape.check(text, example: example).flatMap { _ in
                secretBearingURL("a healthchecks ping URL", example: example,
                                 secret: "the check's ping URL (anyone who has it can ping the check)")(value)
            }
        }
    }

    /// The start of the device's check slugs: what healthchecks allows in a slug, short enough to
    /// leave room for `-check-in`.
    static func slugPrefix(_ value: ConfigValue) -> Result<String, Refusal> {
        text("a slug prefix such as \"lifesignal-mum\"")(value).flatMap { prefix in
            guard prefix.count <= 60, PingURLShape.isSlug(prefix), prefix == prefix.lowercased() else {
                return .failure(Refusal("\(TerminalText.quoted(prefix)) cannot start a healthchecks slug; use at most 60 of "
                                        + "a-z, 0-9, - and _, e.g. \"lifesignal-mum\""))
            }
            return .success(prefix)
        }
    }
}
