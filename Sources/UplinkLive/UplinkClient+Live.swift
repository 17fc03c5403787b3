import CheckInModels
import DeviceAPI
public import UplinkClient

/// RFC 3986 query component: every byte but the unreserved characters as %XX.
func percentEncoded(_ text: String) -> String {
    DeviceAPIPath.pathSegment(text)
}

extension UplinkClient {
    /// The device API over HTTP(S) with libcurl.
    ///
    /// - Parameters:
    ///   - baseURL: the backend, e.g. `https://api.example.org` (paths from docs/device-api.yaml are appended).
    ///   - token: the device's bearer token; it goes into the Authorization header and nowhere else.
    ///   - timeout: bound on each whole request, connecting included (a ping long poll gets its `wait` on top).
    ///   - pollTransport: where the ping long poll runs; a transport of its own keeps a poll that is held
    ///     open for up to `wait` from delaying check-in uploads (one request at a time per transport).
    public static func live(baseURL: String, token: DeviceToken, timeout: Duration, transport: CurlTransport,
                            pollTransport: CurlTransport? = nil) -> UplinkClient {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let checkInsURL = base + DeviceAPIPath.checkIns
        let settingsURL = base + DeviceAPIPath.settings
        let notificationsURL = base + DeviceAPIPath.notifications
        let notificationChangesURL = base + DeviceAPIPath.notificationChanges
        let pingsURL = base + DeviceAPIPath.pings
        let pingResponsesURL = base + DeviceAPIPath.pingResponses
        let alertsURL = base + DeviceAPIPath.alerts
        let eventsURL = base + DeviceAPIPath.events
        let headers = [token.authorizationHeader, "Content-Type: application/json", "Accept: application/json"]
        @Sendable func exchange(_ method: HTTPRequest.Method, _ url: String, _ body: [UInt8] = [],
                                longPoll: Duration? = nil) async -> Result<HTTPResponse, UplinkFailure> {
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body,
                                      timeout: timeout + (longPoll ?? .zero))
            return await (longPoll != nil ? pollTransport ?? transport : transport).perform(request).mapError {
                Self.failure($0, request: "\(method.rawValue) \(url)")
            }
        }
        @Sendable func upload(_ batch: [CheckInRecord]) async -> Result<UploadOutcome, UplinkFailure> {
            let body = CheckInBatch.json(batch)
            return await exchange(.post, checkInsURL, body).flatMap { Self.uploadOutcome($0, url: checkInsURL) }
        }
        let heartbeatURL = base + DeviceAPIPath.heartbeat
        return UplinkClient(
            endpoint: base,
            uploadCheckIns: { batch in await upload(batch).map(\.acknowledged) },
            fetchSettings: {
                await exchange(.get, settingsURL).flatMap { response in
                    guard (200..<300).contains(response.status) else {
                        return .failure(failure(response, request: "GET \(settingsURL)"))
                    }
                    return Self.settings(response, request: "GET \(settingsURL)")
                }
            },
            pushSettings: { offered in
                let body = APICoding.encode(DeviceSettings(intervalSeconds: offered.settings.interval.wholeSeconds,
                                                           reminderSeconds: offered.settings.reminder.wholeSeconds,
                                                           version: offered.version,
                                                           awayFrom: offered.away?.since.rfc3339Microseconds,
                                                           awayUntil: offered.away?.until.rfc3339Microseconds))
                return await exchange(.put, settingsURL, body).flatMap { response in
                    let request = "PUT \(settingsURL)"
                    switch response.status {
                    case 200..<300: return Self.settings(response, request: request).map(SettingsPushOutcome.accepted)
                    case 409: return Self.settings(response, request: request).map(SettingsPushOutcome.backendIsNewer)
                    default: return .failure(failure(response, request: request))
                    }
                }
            },
            fetchNotifications: { after in
                let url = notificationsURL + (after.map { "?after=" + percentEncoded($0) } ?? "")
                return await exchange(.get, url).flatMap { Self.notificationPage($0, request: "GET \(url)") }
            },
            pushNotificationChanges: { changes in
                let body = APICoding.encode(NotificationChangeBatch(changes: changes.map(WireNotificationChange.init)))
                return await exchange(.post, notificationChangesURL, body).flatMap {
                    Self.acknowledgement($0, request: "POST \(notificationChangesURL)")
                }
            },
            pendingPings: { after, wait in
                let seconds = min(max(wait.components.seconds, 0), Int64(DeviceAPIPath.longestPingWait))
                var url = pingsURL + "?wait=\(seconds)"
                if let after { url += "&after=" + percentEncoded(after) }
                return await exchange(.get, url, longPoll: .seconds(seconds)).flatMap { Self.pingPoll($0, request: "GET \(url)") }
            },
            respondToPings: { batch in
                let body = APICoding.encode(PingResponseBatch(responses: batch.map(UploadedPingResponse.init)))
                return await exchange(.post, pingResponsesURL, body).flatMap { Self.acknowledgedIDs($0, url: pingResponsesURL) }
            },
            sendAlert: { alert in
                let body = APICoding.encode(UploadedAlert(alert))
                return await exchange(.post, alertsURL, body).flatMap { Self.acknowledgedIDs($0, url: alertsURL) }
            },
            uploadBatch: upload,
            sendHeartbeat: { heartbeat in
                let body = APICoding.encode(Heartbeat(bootId: heartbeat.bootID, uptimeSeconds: heartbeat.uptime.wholeSeconds,
                                                      queueDepth: heartbeat.queueDepth))
                return await exchange(.post, heartbeatURL, body).flatMap { response in
                    (200..<300).contains(response.status) ? .success(())
                        : .failure(failure(response, request: "POST \(heartbeatURL)"))
                }
            }
        )
        .withSendEvent { event in
            await exchange(.post, eventsURL, APICoding.encode(UploadedEvent(event))).flatMap { Self.acknowledgedIDs($0, url: eventsURL) }
        }
    }

    /// A `PingList` body as pings and the next cursor.
    static func pingPoll(_ response: HTTPResponse, request: String) -> Result<PingPoll, UplinkFailure> {
        guard (200..<300).contains(response.status) else { return .failure(failure(response, request: request)) }
        switch APICoding.decode(PingList.self, from: response.body) {
        case let .success(list):
            return .success(PingPoll(pings: list.pings.map(\.pending), cursor: list.cursor))
        case let .failure(problem):
            return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with pings the device "
                + "cannot read (\(problem.message)); is the URL the LifeSignal device API?", httpStatus: response.status))
        }
    }

    /// The longest interval or reminder a settings reply may carry, in seconds (about 31 years):
    /// far beyond any policy, far below where a duration's microseconds overflow.
    static let maximumSettingSeconds: Int64 = 1_000_000_000

    /// A `DeviceSettings` body as settings with their version.
    static func settings(_ response: HTTPResponse, request: String) -> Result<RemoteSettings, UplinkFailure> {
        switch APICoding.decode(DeviceSettings.self, from: response.body) {
        case let .success(remote):
            // Bounded before they become durations: the settings policy judges the real range, but
            // microsecond arithmetic on, say, Int64.max seconds would trap before it could say so.
            for (name, seconds) in [("intervalSeconds", remote.intervalSeconds), ("reminderSeconds", remote.reminderSeconds)]
                where !(0...maximumSettingSeconds).contains(seconds) {
                return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with \(name) \(seconds), "
                    + "outside 0…\(maximumSettingSeconds) seconds", httpStatus: response.status))
            }
            var away: AwayPlan?
            if let until = remote.awayUntil {
                guard let untilTime = WallTime(iso8601: until), let since = WallTime(iso8601: remote.awayFrom ?? until) else {
                    return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with an away time the device "
                        + "cannot read (awayFrom \(remote.awayFrom ?? "absent"), awayUntil \(until)): RFC 3339 in UTC, e.g. "
                        + "2026-12-24T18:00:00Z", httpStatus: response.status))
                }
                away = AwayPlan(since: since, until: untilTime)
            }
            return .success(RemoteSettings(
                settings: CheckInSettings(interval: .seconds(remote.intervalSeconds), reminder: .seconds(remote.reminderSeconds)),
                version: remote.version, away: away))
        case let .failure(problem):
            return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with settings the device "
                + "cannot read (\(problem.message))", httpStatus: response.status))
        }
    }

    /// The ids of a 2xx reply, or the failure a non-2xx or unreadable reply means.
    static func acknowledgedIDs(_ response: HTTPResponse, url: String) -> Result<[CheckInID], UplinkFailure> {
        acknowledgement(response, request: "POST \(url)").map { $0.compactMap { CheckInID($0) } }
    }

    /// The acknowledged and refused ids of a 2xx reply to a check-in batch, or the failure a non-2xx or
    /// unreadable reply means.
    static func uploadOutcome(_ response: HTTPResponse, url: String) -> Result<UploadOutcome, UplinkFailure> {
        decodeSuccess(CheckInAcknowledgement.self, response, request: "POST \(url)").map { acknowledgement in
            let refused = (acknowledgement.rejected ?? []).compactMap { item in
                CheckInID(item.id).map { RefusedItem(id: $0, message: item.error) }
            }
            return UploadOutcome(acknowledged: acknowledgement.acknowledged.compactMap { CheckInID($0) }, refused: refused)
        }
    }

    /// The acknowledged ids of a 2xx `CheckInAcknowledgement` reply, or the failure a non-2xx or
    /// unreadable reply means.
    static func acknowledgement(_ response: HTTPResponse, request: String) -> Result<[String], UplinkFailure> {
        decodeSuccess(CheckInAcknowledgement.self, response, request: request).map(\.acknowledged)
    }

    /// A 2xx reply's body as `T`; a non-2xx reply or a body that is not `T` is the failure it means.
    static func decodeSuccess<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, request: String) -> Result<T, UplinkFailure> {
        guard (200..<300).contains(response.status) else {
            return .failure(failure(response, request: request))
        }
        return APICoding.decode(type, from: response.body).mapError { problem in
            UplinkFailure(.permanent, "\(request) answered \(response.status) with a reply the device "
                + "cannot read (\(problem.message)); is the URL the LifeSignal device API?", httpStatus: response.status)
        }
    }

    /// A non-2xx reply as a failure carrying the server's message and its `Retry-After`.
    static func failure(_ response: HTTPResponse, request: String) -> UplinkFailure {
        // One line either way: the message goes into `status`, the log and the notes a user reads.
        let replyText: String = switch APICoding.decode(ErrorReply.self, from: response.body) {
        case let .success(reply): reply.error
        case .failure: ReplyText.readable(response.body, contentType: response.headers["content-type"])
        }
        let serverMessage = replyText.filter { !$0.isNewline }
        let retryAfter = response.headers["retry-after"].flatMap { RetryAfter.parse($0, now: RetryAfter.wallNow()) }
        var message = "\(request) answered HTTP \(response.status)"
        if !serverMessage.isEmpty { message += ": \(serverMessage)" }
        return UplinkFailure(UplinkFailure.kind(ofHTTPStatus: response.status), message,
                             httpStatus: response.status, retryAfter: retryAfter)
    }

    /// No response: libcurl's failure, classified, with a hint when the server's certificate is not trusted.
    static func failure(_ failure: TransportFailure, request: String) -> UplinkFailure {
        var message = "\(request) failed: \(failure.message)"
        if [60, 83, 90].contains(failure.code) {  // peer verification, issuer check, pinned key
            message += " (the server's TLS certificate is not trusted by this device's CA store; the device will not "
                + "send to it: give the server a certificate from a public CA, or install its CA on the device "
                + "with update-ca-certificates)"
        }
        return UplinkFailure(kind(ofCurlCode: failure.code), message)
    }

    /// Failures before any response. Configuration and trust problems will not go away by
    /// themselves; everything else (refused, reset, timed out, name lookup) is the network's weather.
    static func kind(ofCurlCode code: Int) -> UplinkFailure.Kind {
        switch code {
        case 1, 3:  // CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT
            .permanent
        case 58, 60, 77, 83, 90:  // client cert, peer verification, CA file, issuer, pinned key
            .permanent
        case 23, -1:  // our write callback refused an oversized reply; setup failed
            .permanent
        default:
            .transient
        }
    }
}
