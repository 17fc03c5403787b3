import CheckInModels
import DeviceAPI
public import UplinkClient

extension UplinkClient {
    /// The device API over HTTP(S) with libcurl.
    ///
    /// - Parameters:
    ///   - baseURL: the backend, e.g. `https://api.example.org` (paths from docs/device-api.yaml are appended).
    ///   - token: the device's bearer token; it goes into the Authorization header and nowhere else.
    ///   - timeout: bound on each whole request, connecting included.
    public static func live(baseURL: String, token: DeviceToken, timeout: Duration, transport: CurlTransport) -> UplinkClient {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let checkInsURL = base + DeviceAPIPath.checkIns
        let settingsURL = base + DeviceAPIPath.settings
        let headers = ["Authorization: Bearer \(token.secret)", "Content-Type: application/json", "Accept: application/json"]
        @Sendable func exchange(_ method: HTTPRequest.Method, _ url: String, _ body: [UInt8] = [])
            async -> Result<HTTPResponse, UplinkFailure> {
            let request = HTTPRequest(method: method, url: url, headers: headers, body: body, timeout: timeout)
            return await transport.perform(request).mapError { Self.failure($0, request: "\(method.rawValue) \(url)") }
        }
        @Sendable func upload(_ batch: [CheckInRecord]) async -> Result<UploadOutcome, UplinkFailure> {
            let body = APICoding.encode(CheckInBatch(checkIns: batch.map(UploadedCheckIn.init)))
            return await exchange(.post, checkInsURL, body).flatMap { Self.acknowledgedIDs($0, url: checkInsURL) }
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
                                                           version: offered.version))
                return await exchange(.put, settingsURL, body).flatMap { response in
                    let request = "PUT \(settingsURL)"
                    switch response.status {
                    case 200..<300: return Self.settings(response, request: request).map(SettingsPushOutcome.accepted)
                    case 409: return Self.settings(response, request: request).map(SettingsPushOutcome.backendIsNewer)
                    default: return .failure(failure(response, request: request))
                    }
                }
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
    }

    /// A `DeviceSettings` body as settings with their version.
    static func settings(_ response: HTTPResponse, request: String) -> Result<RemoteSettings, UplinkFailure> {
        switch APICoding.decode(DeviceSettings.self, from: response.body) {
        case let .success(remote):
            return .success(RemoteSettings(
                settings: CheckInSettings(interval: .seconds(remote.intervalSeconds), reminder: .seconds(remote.reminderSeconds)),
                version: remote.version))
        case let .failure(problem):
            return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with settings the device "
                + "cannot read (\(problem.message))", httpStatus: response.status))
        }
    }

    /// The acknowledged and refused ids of a 2xx reply, or the failure a non-2xx or unreadable reply means.
    static func acknowledgedIDs(_ response: HTTPResponse, url: String) -> Result<UploadOutcome, UplinkFailure> {
        guard (200..<300).contains(response.status) else {
            return .failure(failure(response, request: "POST \(url)"))
        }
        switch APICoding.decode(CheckInAcknowledgement.self, from: response.body) {
        case let .success(acknowledgement):
            let refused = (acknowledgement.rejected ?? []).compactMap { item in
                CheckInID(item.id).map { RefusedItem(id: $0, message: item.error) }
            }
            return .success(UploadOutcome(acknowledged: acknowledgement.acknowledged.compactMap { CheckInID($0) },
                                          refused: refused))
        case let .failure(problem):
            return .failure(UplinkFailure(.permanent, "POST \(url) answered \(response.status) with a reply the device "
                + "cannot read (\(problem.message)); is the URL the LifeSignal device API?", httpStatus: response.status))
        }
    }

    /// A non-2xx reply as a failure carrying the server's message and its `Retry-After`.
    static func failure(_ response: HTTPResponse, request: String) -> UplinkFailure {
        let serverMessage: String = switch APICoding.decode(ErrorReply.self, from: response.body) {
        case let .success(reply): reply.error
        case .failure: String(decoding: response.body.prefix(200), as: UTF8.self)
            .filter { !$0.isNewline }
        }
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
