import CheckInModels
import DeviceAPI
import Synchronization
public import UplinkClient

/// The device's own checks on a healthchecks instance (`[healthchecks] api_key_file`), through
/// its management API v3: found by slug, created when missing, updated when their timeout or
/// grace differ (docs/healthchecks.md). Where each check's pings go (its uuid and ping URL) is
/// learnt from the API and kept here, so the pings need no URL in the config; a check deleted on
/// the server is found missing at its next ping (404) and made again by the next sync.
public final class ManagedChecks: Sendable {
    /// The site, e.g. `https://healthchecks.io` (the API is under `/api/v3/`).
    public let site: String
    private let key: DeviceToken
    private let timeout: Duration
    private let transport: CurlTransport
    /// The slug of each role's check.
    private let slugs: [CheckRole: String]
    private let known = Mutex<[CheckRole: Resolved]>([:])
    /// The specs of the last sync, to make a check again that was deleted on the server.
    private let wanted = Mutex<[CheckRole: CheckSpec]>([:])

    /// Where a check's pings go.
    struct Resolved: Sendable {
        var uuid: String
        var pingURL: String
    }

    public init(site: String, key: DeviceToken, slugPrefix: String, timeout: Duration, transport: CurlTransport) {
        self.site = site.hasSuffix("/") ? String(site.dropLast()) : site
        self.key = key
        self.timeout = timeout
        self.transport = transport
        slugs = Dictionary(uniqueKeysWithValues: CheckRole.allCases.map { ($0, "\(slugPrefix)-\($0.rawValue)") })
    }

    /// `healthchecks.io` (the site without its scheme): how status and logs name the instance.
    public var shownSite: String {
        String(site.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: true).dropFirst().first ?? Substring(site))
    }

    /// The slug of `role`'s check: `lifesignal-check-in`.
    func slug(of role: CheckRole) -> String {
        slugs[role] ?? role.rawValue
    }

    /// How status and logs name a role's check: `lifesignal-check-in on healthchecks.io`.
    public func shown(_ role: CheckRole) -> String {
        "\(slug(of: role)) on \(shownSite)"
    }

    public var client: HealthchecksManagementClient {
        HealthchecksManagementClient(endpoint: shownSite, sync: { specs in await self.sync(specs) })
    }

    // MARK: Sync

    func sync(_ specs: [CheckSpec]) async -> Result<[ManagedCheck], UplinkFailure> {
        wanted.withLock { wanted in for spec in specs { wanted[spec.role] = spec } }
        var checks: [ManagedCheck] = []
        for spec in specs {
            switch await ensure(spec) {
            case let .success(check): checks.append(check)
            case let .failure(failure): return .failure(failure)
            }
        }
        return .success(checks)
    }

    /// Finds the check by its slug; creates it (with every integration of the project) when
    /// missing, or updates it when its timeout, grace, name or description differ.
    private func ensure(_ spec: CheckSpec) async -> Result<ManagedCheck, UplinkFailure> {
        let wanted = HealthchecksCheckUpdate(name: spec.name, slug: spec.slug, desc: spec.description, tags: "lifesignal",
                                             timeout: spec.cron == nil ? spec.timeout.wholeSeconds : nil, grace: spec.grace.wholeSeconds,
                                             schedule: spec.cron?.expression, tz: spec.cron?.timeZone)
        let found: HealthchecksCheck?
        switch await find(slug: spec.slug) {
        case let .success(check): found = check
        case let .failure(failure): return .failure(failure)
        }
        let result: Result<(HealthchecksCheck, ManagedCheck.Change), UplinkFailure>
        if let found, let uuid = found.uuid {
            let sameKind = spec.cron == nil ? found.timeout == wanted.timeout && found.schedule == nil
                : found.schedule == wanted.schedule && found.tz == wanted.tz
            if sameKind, found.grace == wanted.grace, found.name == wanted.name, found.desc == wanted.desc {
                result = .success((found, .unchanged))
            } else {
                result = await request(.post, HealthchecksPath.checks + uuid, body: APICoding.encode(
                    HealthchecksCheckUpdate(name: wanted.name, desc: wanted.desc, timeout: wanted.timeout, grace: wanted.grace,
                                            schedule: wanted.schedule, tz: wanted.tz)))
                    .flatMap { decoded(HealthchecksCheck.self, $0) }.map { ($0, .updated) }
            }
        } else if found != nil {
            return .failure(UplinkFailure(.permanent, "\(site) does not show the check's uuid: the API key in [healthchecks] "
                + "api_key_file is a read-only key; the device needs a read-write one to create and update its checks"))
        } else {
            var create = wanted
            create.channels = "*"
            result = await request(.post, HealthchecksPath.checks, body: APICoding.encode(create))
                .flatMap { decoded(HealthchecksCheck.self, $0) }.map { ($0, .created) }
        }
        let checked: Result<(HealthchecksCheck, ManagedCheck.Change, Resolved), UplinkFailure> = result.flatMap { check, change in
            guard let uuid = check.uuid, let pingURL = check.pingURL else {
                return .failure(UplinkFailure(.permanent, "\(site) answered without the check's uuid and ping URL"))
            }
            let resolved = Resolved(uuid: uuid, pingURL: pingURL)
            known.withLock { $0[spec.role] = resolved }
            return .success((check, change, resolved))
        }
        guard case let .success((check, change, resolved)) = checked else { return checked.map { _ in fatalError() } }
        // Away mode pauses the check-in check (only the device pauses and resumes it; the alert
        // check's pauses between alerts are another matter).
        var status = check.status, changed = change
        if spec.role == .checkIn, spec.paused != (status == "paused") {
            let step = spec.paused ? await pause(uuid: resolved.uuid) : await resume(pingURL: resolved.pingURL)
            if case let .failure(failure) = step { return .failure(failure) }
            status = spec.paused ? "paused" : "up"
            if changed == .unchanged { changed = .updated }
        }
        return .success(ManagedCheck(role: spec.role, slug: check.slug, status: status,
                                     timeout: .seconds(check.timeout ?? 0), grace: .seconds(check.grace), change: changed))
    }

    /// Away mode ended: a success ping takes the check from paused to up with a fresh period (as
    /// the device's countdown starts afresh); healthchecks notifies nobody for paused → up.
    private func resume(pingURL: String) async -> Result<Void, UplinkFailure> {
        let shown = "POST \(UplinkClient.shortened(pingURL))"
        let request = HTTPRequest(method: .post, url: pingURL, headers: ["Content-Type: text/plain; charset=utf-8"],
                                  body: Array("LifeSignal: away mode ended; a fresh countdown starts now\n".utf8), timeout: timeout)
        return await transport.perform(request)
            .mapError { UplinkClient.failure($0, request: shown) }
            .flatMap { response in
                guard (200..<300).contains(response.status) else { return .failure(UplinkClient.failure(response, request: shown)) }
                return .success(())
            }
    }

    func find(slug: String) async -> Result<HealthchecksCheck?, UplinkFailure> {
        await request(.get, HealthchecksPath.checks + "?slug=" + percentEncoded(slug))
            .flatMap { decoded(HealthchecksCheckList.self, $0) }
            .map { list in list.checks.first { $0.slug == slug } }
    }

    // MARK: For the pings

    /// Where `role`'s pings go: known from a sync, or looked up by slug. A check that does not
    /// exist is made again as the last sync wanted it (deleted on the server); before the first
    /// sync it is a transient failure: the sync (once the settings are known) creates it, and the
    /// pings waiting for it go then.
    func resolve(_ role: CheckRole) async -> Result<Resolved, UplinkFailure> {
        if let resolved = known.withLock({ $0[role] }) { return .success(resolved) }
        let slug = self.slug(of: role)
        let found = await find(slug: slug)
        if case .success(nil) = found, let spec = wanted.withLock({ $0[role] }) {
            return await ensure(spec).flatMap { _ in
                known.withLock { $0[role] }.map { .success($0) }
                    ?? .failure(UplinkFailure(.transient, "the check \(slug) could not be made again on \(site)"))
            }
        }
        return found.flatMap { check in
            guard let check else {
                return .failure(UplinkFailure(.transient, "the check \(slug) does not exist on \(site) yet; the device creates it "
                    + "when its settings are known"))
            }
            guard let uuid = check.uuid, let pingURL = check.pingURL else {
                return .failure(UplinkFailure(.permanent, "\(site) does not show the check's uuid: [healthchecks] api_key_file holds "
                    + "a read-only key; the device needs a read-write one"))
            }
            let resolved = Resolved(uuid: uuid, pingURL: pingURL)
            known.withLock { $0[role] = resolved }
            return .success(resolved)
        }
    }

    /// The check answered 404 to a ping: it was deleted on the server. The next ping makes it again.
    func forget(_ role: CheckRole) {
        _ = known.withLock { $0.removeValue(forKey: role) }
    }

    /// healthchecks' status of a check (new, up, grace, down, paused).
    func status(uuid: String) async -> Result<String, UplinkFailure> {
        await request(.get, HealthchecksPath.checks + uuid).flatMap { decoded(HealthchecksCheck.self, $0) }.map(\.status)
    }

    /// The check's most recent pings, newest first.
    func pings(uuid: String) async -> Result<[HealthchecksPing], UplinkFailure> {
        await request(.get, HealthchecksPath.checks + uuid + "/pings/").flatMap { decoded(HealthchecksPingList.self, $0) }.map(\.pings)
    }

    /// Pauses the check: it leaves `down` without a notification, so the next `fail` notifies again.
    func pause(uuid: String) async -> Result<Void, UplinkFailure> {
        await request(.post, HealthchecksPath.checks + uuid + "/pause").map { _ in () }
    }

    // MARK: HTTP

    func request(_ method: HTTPRequest.Method, _ path: String, body: [UInt8] = []) async -> Result<HTTPResponse, UplinkFailure> {
        let url = site + path
        let shown = "\(method.rawValue) \(url)"
        let request = HTTPRequest(method: method, url: url, headers: ["X-Api-Key: \(key.secret)", "Content-Type: application/json",
                                                                    "Accept: application/json"],
                                  body: method == .post && body.isEmpty ? Array("{}".utf8) : body, timeout: timeout)
        return await transport.perform(request)
            .mapError { UplinkClient.failure($0, request: shown) }
            .flatMap { response in
                guard (200..<300).contains(response.status) else { return .failure(Self.failure(response, request: shown)) }
                return .success(response)
            }
    }

    /// The API's refusals with what to do about them: 401 is a wrong or read-only key, 403 the
    /// project's check limit.
    static func failure(_ response: HTTPResponse, request: String) -> UplinkFailure {
        var failure = UplinkClient.failure(response, request: request)
        switch response.status {
        case 401:
            failure.message += " (the API key in [healthchecks] api_key_file is wrong, or read-only: the device needs a read-write "
                + "key of the project, from Project Settings → API Access)"
        case 403:
            failure.message += " (the project cannot take another check: free accounts have a limit; remove unused checks)"
        default:
            break
        }
        return failure
    }

    func decoded<T: Decodable>(_ type: T.Type, _ response: HTTPResponse) -> Result<T, UplinkFailure> {
        Self.decoded(type, response, site: site)
    }

    /// A 2xx reply of the API as `T`, or the failure a reply the device cannot read means.
    static func decoded<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, site: String) -> Result<T, UplinkFailure> {
        APICoding.decode(type, from: response.body).mapError { problem in
            UplinkFailure(.permanent, "\(site) answered \(response.status) with a reply the device cannot read (\(problem.message)); "
                + "is [healthchecks] api_url the healthchecks site?", httpStatus: response.status)
        }
    }
}
