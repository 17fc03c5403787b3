public import DependentsClient
import CheckInModels
import DeviceAPI
import UplinkClient

extension DependentsClient {
    /// healthchecks checks as dependents, read with a project's read-only API key through the
    /// management API v3 (`GET /api/v3/checks/`). A check is addressed by its slug, or by its
    /// UUID where the key shows UUIDs (healthchecks hides them from read-only keys). Nothing is
    /// written: no ping, no clearing, no "I'm on it" (each fails permanently, saying so).
    ///
    /// Status: `up` and `started` are checked in, `grace` reminder, `down` overdue, `paused` away,
    /// `new` unknown; `last_ping` is the last check-in, `next_ping` the deadline.
    ///
    /// - Parameters:
    ///   - apiURL: the site, e.g. `https://healthchecks.io` (the API is under `/api/v3/`).
    ///   - readOnlyKey: the project's read-only API key; it goes into `X-Api-Key` and nowhere else.
    ///   - timeout: bound on each whole request, connecting included.
    public static func healthchecks(apiURL: String, readOnlyKey: DeviceToken, timeout: Duration, transport: CurlTransport)
        -> DependentsClient {
        let site = apiURL.hasSuffix("/") ? String(apiURL.dropLast()) : apiURL
        let url = site + HealthchecksPath.checks
        @Sendable func checks() async -> Result<[HealthchecksCheck], UplinkFailure> {
            let request = HTTPRequest(method: .get, url: url, headers: ["X-Api-Key: \(readOnlyKey.secret)", "Accept: application/json"],
                                      timeout: timeout)
            let shown = "GET \(url)"
            return await transport.perform(request)
                .mapError { UplinkClient.failure($0, request: shown) }
                .flatMap { response in
                    guard (200..<300).contains(response.status) else { return .failure(healthchecksFailure(response, request: shown)) }
                    return APICoding.decode(HealthchecksCheckList.self, from: response.body).map(\.checks).mapError { problem in
                        UplinkFailure(.permanent, "\(shown) answered \(response.status) with a reply the device cannot read "
                            + "(\(problem.message)); is \(site) a healthchecks site?", httpStatus: response.status)
                    }
                }
        }
        @Sendable func all() async -> Result<[String: SourcedDependent], UplinkFailure> {
            await checks().flatMap { checks in
                var dependents: [String: SourcedDependent] = [:]
                for check in checks {
                    switch sourced(check, site: site) {
                    case let .success(dependent):
                        for address in [check.slug, check.uuid ?? ""] where !address.isEmpty { dependents[address] = dependent }
                    case let .failure(failure):
                        return .failure(failure)
                    }
                }
                return .success(dependents)
            }
        }
        @Sendable func cannot(_ what: String, _ check: String) -> Result<Void, UplinkFailure> {
            .failure(UplinkFailure(.permanent, "healthchecks cannot carry \(what): '\(check)' is a healthchecks check on \(site), "
                + "only read"))
        }
        return DependentsClient(
            kind: "healthchecks", endpoint: site,
            fetch: all,
            ping: { check in cannot("a ping", check) },
            clearPing: { check in cannot("a ping", check) },
            onIt: { check, _ in cannot("\"I'm on it\"", check) },
            add: { check in
                await all().flatMap { dependents in
                    if let dependent = dependents[check] { return .success(dependent) }
                    var message = "\(site) has no check with slug or UUID '\(check)' in the project of the read-only key"
                    if PingAddress.isUUID(check) {
                        message += " (healthchecks does not show check UUIDs to a read-only key: name the check by its slug)"
                    }
                    return .failure(UplinkFailure(.permanent, message))
                }
            },
            // Nothing is kept on healthchecks for a watcher.
            remove: { _ in .success(()) })
    }

    /// The API's refusal, with what to do about a 401.
    static func healthchecksFailure(_ response: HTTPResponse, request: String) -> UplinkFailure {
        var failure = UplinkClient.failure(response, request: request)
        if response.status == 401 {
            failure.message += " (the read-only API key is wrong: copy it from the project's Settings → API Access)"
        }
        return failure
    }

    /// healthchecks' status words as a dependent's; any other word is a failure naming it.
    static func status(ofCheck word: String) -> DependentStatus? {
        switch word {
        case "up", "started": .checkedIn
        case "grace": .reminder
        case "down": .overdue
        case "paused": .away
        case "new": .unknown
        default: nil
        }
    }

    static func sourced(_ check: HealthchecksCheck, site: String) -> Result<SourcedDependent, UplinkFailure> {
        let shown = check.slug.isEmpty ? check.uuid ?? check.name : check.slug
        guard let status = status(ofCheck: check.status) else {
            return .failure(UplinkFailure(.permanent, "\(site) shows check '\(shown)' in status '\(check.status)', which this device "
                + "does not know (it knows new, up, started, grace, down, paused)"))
        }
        var times: [WallTime?] = []
        for (name, text) in [("last_ping", check.lastPing), ("next_ping", check.nextPing)] {
            guard let text else {
                times.append(nil)
                continue
            }
            guard let time = WallTime(iso8601: text) else {
                return .failure(UplinkFailure(.permanent, "\(site) shows check '\(shown)' with \(name) '\(text)', not an RFC 3339 time"))
            }
            times.append(time)
        }
        return .success(SourcedDependent(name: check.name.isEmpty ? shown : check.name,
                                         report: DependentReport(status: status, lastCheckIn: times[0], deadline: times[1])))
    }
}

/// A check's UUID as healthchecks writes it.
enum PingAddress {
    static func isUUID(_ text: String) -> Bool {
        CheckInID(text)?.description == text.lowercased()
    }
}
