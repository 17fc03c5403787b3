import CheckInModels
import ConfigFile

/// `[uplink]`: where and how the device uploads its check-ins. No `url` = an offline device.
public struct UplinkConfiguration: Hashable, Sendable {
    /// The backend's base URL: `https://…`, or `http://` to this machine only (127.0.0.1, ::1, localhost).
    public var url: String
    /// File holding the device's bearer token; it must not be accessible to other users.
    public var tokenFile: String
    /// Check-ins per upload request (1…1000).
    public var batchSize: Int
    /// Bound on each request, connecting included (1s…5m).
    public var timeout: Duration
    /// The longest wait between retries after transient failures (1s…24h).
    public var retryMax: Duration
    /// How often notifications are fetched from the backend while nothing else asks for them (10s…24h).
    public var notificationsRefresh: Duration
    /// Check-ins waiting longer than this for the backend's acknowledgement mark the LEDs (10s…7d).
    public var staleAfter: Duration
    /// How often the device tells the backend it is alive (`POST /v1/heartbeat`), 1s…24h.
    public var heartbeat: Duration

    public init(url: String, tokenFile: String, batchSize: Int = 500, timeout: Duration = .seconds(30),
                retryMax: Duration = .seconds(900), notificationsRefresh: Duration = .seconds(300),
                staleAfter: Duration = .seconds(3600), heartbeat: Duration = UplinkConfiguration.defaultHeartbeat) {
        self.url = url
        self.staleAfter = staleAfter
        self.tokenFile = tokenFile
        self.batchSize = batchSize
        self.timeout = timeout
        self.retryMax = retryMax
        self.notificationsRefresh = notificationsRefresh
        self.heartbeat = heartbeat
    }

    public static let defaultHeartbeat = Duration.seconds(900)
    /// Heartbeat periods the config accepts (seconds for development against the dev server).
    static let heartbeatRange = Duration.seconds(1) ... .seconds(86_400)
}

extension ConfigLoader {
    /// `[uplink]`: nil when the table or its `url` is absent (other keys without a url are an error).
    mutating func readUplink(_ table: ConfigTable?) -> UplinkConfiguration? {
        guard let table else { return nil }
        let url = optionalValue(table, "uplink", "url", ValueRules.uplinkURL)
        let tokenFile = optionalValue(table, "uplink", "token_file", ValueRules.absolutePath("the uplink token file"))
        let batchSize = value(table, "uplink", "batch_size", 500, ValueRules.integer(in: 1...1000))
        let timeout = value(table, "uplink", "timeout", .seconds(30), ValueRules.duration(in: .seconds(1) ... .seconds(300)))
        let retryMax = value(table, "uplink", "retry_max", .seconds(900), ValueRules.duration(in: .seconds(1) ... .seconds(86_400)))
        let notificationsRefresh = value(table, "uplink", "notifications_refresh", .seconds(300),
                                         ValueRules.duration(in: .seconds(10) ... .seconds(86_400)))
        let staleAfter = value(table, "uplink", "stale_after", .seconds(3600),
                               ValueRules.duration(in: .seconds(10) ... .seconds(7 * 86_400)))
        let heartbeat = value(table, "uplink", "heartbeat", UplinkConfiguration.defaultHeartbeat,
                              ValueRules.duration(in: UplinkConfiguration.heartbeatRange))
        guard table["url"] != nil else {
            if let first = table.entries.first {
                report("uplink.url", atEntry: first, "[uplink] needs url = \"https://…\" (the backend); "
                       + "remove the [uplink] table to run the device offline")
            }
            return nil
        }
        guard let url else { return nil }
        guard let tokenFile else {
            if table["token_file"] == nil, let entry = table["url"] {
                report("uplink.token_file", atEntry: entry, "an uplink needs token_file = \"/path/to/token\" "
                       + "(the device's bearer token; mode 0600)")
            }
            return nil
        }
        return UplinkConfiguration(url: url, tokenFile: tokenFile, batchSize: batchSize, timeout: timeout, retryMax: retryMax,
                                   notificationsRefresh: notificationsRefresh, staleAfter: staleAfter, heartbeat: heartbeat)
    }
}

extension ValueRules {
    /// An http(s) base URL. Plain http would send the device's token in clear text, so it is only
    /// accepted for this machine (development against lifesignal-devserver).
    static func uplinkURL(_ value: ConfigValue) -> Result<String, Refusal> {
        secretBearingURL("the backend's URL", example: "https://api.example.org", secret: "the device's token")(value)
    }

    /// An http(s) URL that carries or comes with a secret (a token, a ping URL's uuid), so plain
    /// http is accepted only for this machine.
    static func secretBearingURL(_ what: String, example: String, secret: String) -> Rule<String> {
        { value in secretBearingURL(value, what: what, example: example, secret: secret) }
    }

    private static func secretBearingURL(_ value: ConfigValue, what: String, example: String, secret: String)
        -> Result<String, Refusal> {
        text("\(what), e.g. \"\(example)\"")(value).flatMap { url in
            let lower = url.lowercased()
            let scheme = lower.hasPrefix("https://") ? "https://" : lower.hasPrefix("http://") ? "http://" : nil
            guard let scheme else {
                return .failure(Refusal("\"\(url)\" is not an http(s) URL; expected e.g. \"\(example)\""))
            }
            let rest = lower.dropFirst(scheme.count)
            let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !url.contains(" ") else {
                let joined = url.split(separator: " ").joined()
                return .failure(Refusal("\"\(url)\" contains a space, which no URL has; did you mean \"\(joined)\"?"))
            }
            guard !authority.isEmpty else {
                return .failure(Refusal("\"\(url)\" has no host; expected e.g. \"\(example)\""))
            }
            guard !authority.contains("@") else {
                return .failure(Refusal("the URL must not carry credentials (user@host)"))
            }
            guard !rest.contains("?"), !rest.contains("#") else {
                return .failure(Refusal("the URL must not have a query or fragment, e.g. \"\(example)\""))
            }
            if scheme == "http://" {
                let host = authority.hasPrefix("[") ? String(authority.prefix { $0 != "]" }.dropFirst())
                    : String(authority.prefix { $0 != ":" })
                guard ["127.0.0.1", "localhost", "::1"].contains(host) else {
                    return .failure(Refusal("plain http would send \(secret) unencrypted to \(host); "
                                            + "use https:// (http:// is accepted only for 127.0.0.1, ::1 and localhost)"))
                }
            }
            return .success(url)
        }
    }
}
