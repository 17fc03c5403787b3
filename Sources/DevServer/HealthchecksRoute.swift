public import DeviceAPI
import CheckInModels
import Synchronization

/// One ping as a healthchecks.io-compatible check received it (`GET /admin/healthchecks-pings`).
public struct RecordedPing: Codable, Hashable, Sendable {
    /// The check as the URL named it: its uuid, or `<ping-key>/<slug>`.
    public var check: String
    /// `success`, `fail`, `start` or `log` (`/log`: recorded without changing the check's state).
    public var kind: String
    public var body: String
    public var receivedAt: String
    /// The request's `User-Agent`.
    public var userAgent: String? = nil
    /// The run id (`?rid=`).
    public var rid: String? = nil
}

/// The keys of the dev server's one healthchecks project.
public struct HealthchecksProject: Sendable {
    /// `<ping-key>/<slug>` pings with another key answer 404, as healthchecks does.
    public var pingKey: String
    /// A read-write API key (32 characters, as healthchecks requires).
    public var readWriteKey: String
    /// A read-only API key: reads only, like healthchecks'.
    public var readOnlyKey: String

    public init(pingKey: String = HealthchecksProject.devPingKey, readWriteKey: String = HealthchecksProject.devReadWriteKey,
                readOnlyKey: String = HealthchecksProject.devReadOnlyKey) {
        self.pingKey = pingKey
        self.readWriteKey = readWriteKey
        self.readOnlyKey = readOnlyKey
    }

    public static let devPingKey = "lifesignal-dev-ping-key"
    public static let devReadWriteKey = "rw-lifesignal-dev-0123456789abcd"
    public static let devReadOnlyKey = "ro-lifesignal-dev-0123456789abcd"
}

/// A check as the dev server keeps it (`GET /admin/healthchecks-checks`).
public struct DevCheck: Codable, Hashable, Sendable {
    public var uuid: String
    public var name: String
    public var slug: String
    public var desc: String
    public var timeout: Int64
    public var grace: Int64
    /// new, up, down, paused.
    public var status: String
    /// The `channels` it was made or last updated with, as sent (`*`, ids or names).
    public var channels: String
    /// The ids of the integrations it notifies, as healthchecks resolves `channels` (`*`: every
    /// integration the project had then); healthchecks' pages add a new integration to every check.
    public var assigned: [String] = []
    /// A cron check: its expression and zone (healthchecks then ignores `timeout`).
    public var schedule: String? = nil
    public var tz: String? = nil
    /// Made through the management API (a hand-made one exists once pinged).
    public var managed: Bool
    public var pings: [HealthchecksPing] = []
    /// The notifications healthchecks would have sent, in order: `down` or `up` for each change
    /// of status, except new→up and paused→up (healthchecks' own rule).
    public var notifications: [String] = []

    /// A ping's effect on the status, as healthchecks' `Check.ping` has it.
    mutating func flip(to status: String) {
        guard status != self.status else { return }
        if !(status == "up" && ["new", "paused"].contains(self.status)) { notifications.append(status) }
        self.status = status
    }
}

/// The ping endpoints and the management API subset of a healthchecks instance, for tests and
/// demos (docs/healthchecks.md, "The reference backend"):
/// - `POST|GET|HEAD /ping/<uuid>[/fail|/start|/log|/<exit status>]` and the same under
///   `/ping/<ping-key>/<slug>`, answering `OK` as healthchecks does. A uuid never seen is a
///   hand-made check that exists from its first ping; a slug needs the project's ping key
///   (another key is 404) and exists from its first ping too. `?rid=` is kept.
/// - `/api/v3/checks/` (list, `?slug=`), create (`POST`), `/api/v3/checks/<uuid>` (read,
///   `POST` update), `/pause`, `/pings/`, `/api/v3/channels/` (the project's integrations,
///   read-write key only), authenticated with `X-Api-Key` (a read-only key only reads checks;
///   any other is 401, as healthchecks answers).
/// Everything is kept in memory only.
final class HealthchecksRoute: Sendable {
    static let pingPrefix = "/ping/"
    static let apiPrefix = "/api/v3/"
    let project: HealthchecksProject
    private let state = Mutex<(checks: [DevCheck], pings: [RecordedPing], integrations: [HealthchecksChannel])>(([], [], []))

    init(project: HealthchecksProject) {
        self.project = project
    }

    var recorded: [RecordedPing] { state.withLock { $0.pings } }
    var checks: [DevCheck] { state.withLock { $0.checks } }

    func add(_ integration: HealthchecksChannel, assignedToAllChecks: Bool) {
        state.withLock { state in
            state.integrations.append(integration)
            guard assignedToAllChecks else { return }
            for index in state.checks.indices { state.checks[index].assigned.append(integration.id) }
        }
    }

    static func handles(_ path: String) -> Bool {
        path.hasPrefix(pingPrefix) || path.hasPrefix(apiPrefix)
    }

    func handle(_ request: ServerRequest, receivedAt: String) -> ServerResponse {
        request.path.hasPrefix(Self.apiPrefix) ? api(request, now: receivedAt) : ping(request, receivedAt: receivedAt)
    }

    // MARK: Pings

    private func ping(_ request: ServerRequest, receivedAt: String) -> ServerResponse {
        guard request.method == "POST" || request.method == "GET" || request.method == "HEAD" else {
            return .text(405, "method not allowed", headers: [("Allow", "GET, HEAD, POST")])
        }
        var parts = request.path.dropFirst(Self.pingPrefix.count).split(separator: "/", omittingEmptySubsequences: false)
            .map(String.init)
        if parts.last == "" { parts.removeLast() }  // a trailing slash
        var kind = "success"
        if let last = parts.last, ["fail", "start", "log"].contains(last) || Int(last) != nil,
           (parts.count == 2 && PingShape.isUUID(parts[0])) || parts.count == 3 {
            if let status = Int(last) {
                guard status <= 255 else { return .text(400, "invalid url format") }
                kind = status == 0 ? "success" : "fail"
            } else {
                kind = last
            }
            parts.removeLast()
        }
        let name: String
        switch parts.count {
        case 1 where PingShape.isUUID(parts[0]):
            name = parts[0]
        case 2 where !parts[0].isEmpty && !parts[1].isEmpty:
            guard parts[0] == project.pingKey else { return .text(404, "not found") }
            guard parts[1] == parts[1].lowercased() else { return .text(400, "invalid url format") }
            name = parts.joined(separator: "/")
        default:
            return .text(404, "not found")
        }
        if let rid = request.query["rid"], !PingShape.isUUID(rid) { return .text(400, "invalid uuid format") }
        let ping = RecordedPing(check: name, kind: kind, body: String(decoding: request.body, as: UTF8.self), receivedAt: receivedAt,
                                userAgent: request.headers["user-agent"], rid: request.query["rid"])
        state.withLock { state in
            state.pings.append(ping)
            let index = state.checks.firstIndex { check in
                check.uuid == name || (name.hasSuffix("/" + check.slug) && !check.slug.isEmpty)
            } ?? {
                // A hand-made check: it exists from its first ping.
                let slug = name.contains("/") ? String(name.split(separator: "/")[1]) : ""
                state.checks.append(DevCheck(uuid: name.contains("/") ? CheckInID.random().description : name, name: "", slug: slug,
                                             desc: "", timeout: 86_400, grace: 3600, status: "new", channels: "", managed: false))
                return state.checks.count - 1
            }()
            var check = state.checks[index]
            check.pings.insert(HealthchecksPing(type: kind, date: receivedAt, n: check.pings.count + 1, method: request.method,
                                                ua: request.headers["user-agent"], rid: request.query["rid"]), at: 0)
            if kind == "success" { check.flip(to: "up") }
            if kind == "fail" { check.flip(to: "down") }
            state.checks[index] = check
        }
        return .text(200, "OK")
    }

    // MARK: Management API

    private func api(_ request: ServerRequest, now: String) -> ServerResponse {
        let key = request.headers["x-api-key"] ?? ""
        guard key.count == 32 else { return .error(401, "missing api key") }
        let readOnly = key == project.readOnlyKey
        guard key == project.readWriteKey || readOnly else { return .error(401, "wrong api key") }
        let rest = request.path.dropFirst(Self.apiPrefix.count).split(separator: "/").map(String.init)
        let host = request.headers["host"] ?? "127.0.0.1"
        switch (request.method, rest.count) {
        case ("GET", 1) where rest[0] == "checks":
            let slug = request.query["slug"]
            let found = state.withLock { $0.checks }.filter { $0.managed && (slug == nil || $0.slug == slug) }
            return .json(HealthchecksCheckList(checks: found.map { wire($0, host: host, readOnly: readOnly, now: now) }))
        case ("POST", 1) where rest[0] == "checks":
            guard !readOnly else { return .error(401, "wrong api key") }
            return create(request, host: host, now: now)
        case (_, 2) where rest[0] == "checks" && PingShape.isUUID(rest[1]):
            return single(request, uuid: rest[1], host: host, readOnly: readOnly, now: now)
        case ("POST", 3) where rest[0] == "checks" && rest[2] == "pause":
            guard !readOnly else { return .error(401, "wrong api key") }
            return change(uuid: rest[1], host: host, now: now) { $0.status = "paused" }
        case ("GET", 1) where rest[0] == "channels":
            // healthchecks' `channels` view takes the read-write key only (`@authorize`).
            guard !readOnly else { return .error(401, "wrong api key") }
            return .json(HealthchecksChannelList(channels: state.withLock { $0.integrations }))
        case ("GET", 3) where rest[0] == "checks" && rest[2] == "pings":
            guard !readOnly else { return .error(401, "wrong api key") }
            guard let check = state.withLock({ $0.checks.first { $0.uuid == rest[1] && $0.managed } }) else {
                return .error(404, "not found")
            }
            return .json(HealthchecksPingList(pings: check.pings))
        default:
            return .error(404, "not found")
        }
    }

    private func create(_ request: ServerRequest, host: String, now: String) -> ServerResponse {
        guard case let .success(spec) = APICoding.decode(HealthchecksCheckUpdate.self, from: request.body) else {
            return .error(400, "could not parse request body")
        }
        if let problem = Self.problem(spec) { return .error(400, problem) }
        var check = DevCheck(uuid: CheckInID.random().description, name: spec.name ?? "", slug: spec.slug ?? "", desc: spec.desc ?? "",
                             timeout: spec.timeout ?? 86_400, grace: spec.grace ?? 3600, status: "new", channels: spec.channels ?? "",
                             managed: true)
        check.schedule = spec.schedule
        check.tz = spec.schedule == nil ? nil : spec.tz ?? "UTC"
        let made = state.withLock { state -> Result<DevCheck, DevServerError> in
            if let channels = spec.channels {
                switch Self.assignment(channels, of: state.integrations) {
                case let .success(ids): check.assigned = ids
                case let .failure(problem): return .failure(problem)
                }
            }
            state.checks.append(check)
            return .success(check)
        }
        switch made {
        case let .success(check): return .json(wire(check, host: host, readOnly: false, now: now), status: 201)
        case let .failure(problem): return .error(400, problem.message)
        }
    }

    private func single(_ request: ServerRequest, uuid: String, host: String, readOnly: Bool, now: String) -> ServerResponse {
        switch request.method {
        case "GET":
            guard let check = state.withLock({ $0.checks.first { $0.uuid == uuid && $0.managed } }) else {
                return .error(404, "not found")
            }
            return .json(wire(check, host: host, readOnly: readOnly, now: now))
        case "POST":
            guard !readOnly else { return .error(401, "wrong api key") }
            guard case let .success(spec) = APICoding.decode(HealthchecksCheckUpdate.self, from: request.body) else {
                return .error(400, "could not parse request body")
            }
            if let problem = Self.problem(spec) { return .error(400, problem) }
            var assigned: [String]?
            if let channels = spec.channels {
                switch Self.assignment(channels, of: state.withLock { $0.integrations }) {
                case let .success(ids): assigned = ids
                case let .failure(problem): return .error(400, problem.message)
                }
            }
            return change(uuid: uuid, host: host, now: now) { check in
                if let name = spec.name { check.name = name }
                if let slug = spec.slug { check.slug = slug }
                if let desc = spec.desc { check.desc = desc }
                if let timeout = spec.timeout {
                    // Setting a timeout makes it a simple check, a schedule a cron check (healthchecks' rule).
                    check.timeout = timeout
                    check.schedule = nil
                    check.tz = nil
                }
                if let schedule = spec.schedule {
                    check.schedule = schedule
                    check.tz = spec.tz ?? check.tz ?? "UTC"
                }
                if let grace = spec.grace { check.grace = grace }
                if let channels = spec.channels { check.channels = channels }
                if let assigned { check.assigned = assigned }
            }
        default:
            return .error(405, "method not allowed")
        }
    }

    private func change(uuid: String, host: String, now: String, _ body: (inout DevCheck) -> Void) -> ServerResponse {
        let changed = state.withLock { state -> DevCheck? in
            guard let index = state.checks.firstIndex(where: { $0.uuid == uuid && $0.managed }) else { return nil }
            body(&state.checks[index])
            return state.checks[index]
        }
        guard let changed else { return .error(404, "not found") }
        return .json(wire(changed, host: host, readOnly: false, now: now))
    }

    /// healthchecks' own limits: timeout and grace from one minute to a year, slugs a-z 0-9 - _.
    static func problem(_ spec: HealthchecksCheckUpdate) -> String? {
        for (name, value) in [("timeout", spec.timeout), ("grace", spec.grace)] {
            guard let value else { continue }
            if value < 60 { return "json validation error: \(name) is too small" }
            if value > 31_536_000 { return "json validation error: \(name) is too large" }
        }
        if let schedule = spec.schedule, schedule.split(separator: " ").count != 5 {
            return "json validation error: schedule is not a valid cron expression"
        }
        if let slug = spec.slug, !slug.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == "_") }) {
            return "json validation error: slug does not match pattern ^[a-zA-Z0-9-_]*$"
        }
        return nil
    }

    /// The integrations `channels` names, as healthchecks' `_update` resolves it: `*` every one,
    /// `""` none, otherwise comma-separated ids or names, each matching exactly one.
    static func assignment(_ channels: String, of integrations: [HealthchecksChannel]) -> Result<[String], DevServerError> {
        if channels == "*" { return .success(integrations.map(\.id)) }
        if channels.isEmpty { return .success([]) }
        var ids: [String] = []
        for name in channels.split(separator: ",", omittingEmptySubsequences: false).map(String.init) {
            guard !name.isEmpty else { return .failure(DevServerError("empty channel identifier")) }
            let matches = integrations.filter { $0.id == name || $0.name == name }
            guard matches.count == 1 else {
                return .failure(DevServerError(matches.isEmpty ? "invalid channel identifier: \(name)"
                    : "non-unique channel identifier: \(name)"))
            }
            if !ids.contains(matches[0].id) { ids.append(matches[0].id) }
        }
        return .success(ids)
    }

    private func wire(_ check: DevCheck, host: String, readOnly: Bool, now: String) -> HealthchecksCheck {
        let site = "http://\(host)"
        let lastPing = check.pings.first { $0.type == "success" || $0.type == "fail" }?.date
        let (status, nextPing) = Self.liveStatus(check, lastPing: lastPing.flatMap { WallTime(iso8601: $0) },
                                                 now: WallTime(iso8601: now))
        return HealthchecksCheck(
            name: check.name, slug: check.slug, desc: check.desc, timeout: check.schedule == nil ? check.timeout : nil, grace: check.grace,
            status: status,
            nPings: check.pings.count, lastPing: lastPing,
            uuid: readOnly ? nil : check.uuid, pingURL: readOnly ? nil : "\(site)/ping/\(check.uuid)",
            updateURL: readOnly ? nil : "\(site)/api/v3/checks/\(check.uuid)",
            pauseURL: readOnly ? nil : "\(site)/api/v3/checks/\(check.uuid)/pause", schedule: check.schedule, tz: check.tz,
            nextPing: nextPing?.rfc3339Microseconds,
            // Sorted ids, comma-separated, read-write key only (healthchecks' `Check.channels_str`).
            channels: readOnly ? nil : check.assigned.sorted().joined(separator: ","))
    }

    /// The status as healthchecks shows it at `now`: an `up` simple check whose next ping is late
    /// is in `grace`, and `down` once the grace has passed too (healthchecks' `Check.get_status`).
    /// Cron checks keep their stored status here: the dev server does not evaluate schedules.
    static func liveStatus(_ check: DevCheck, lastPing: WallTime?, now: WallTime?) -> (status: String, nextPing: WallTime?) {
        guard check.schedule == nil, ["up", "down"].contains(check.status), let lastPing else { return (check.status, nil) }
        let nextPing = lastPing + .seconds(check.timeout)
        guard check.status == "up", let now else { return (check.status, nextPing) }
        if now >= nextPing + .seconds(check.grace) { return ("down", nextPing) }
        return (now >= nextPing ? "grace" : "up", nextPing)
    }
}

/// healthchecks' uuid converter: lower-case hex in 8-4-4-4-12 (`CheckInID`'s own form).
enum PingShape {
    static func isUUID(_ text: String) -> Bool {
        CheckInID(text)?.description == text
    }
}

extension ServerResponse {
    /// A plain-text reply, as healthchecks' ping endpoints answer.
    static func text(_ status: Int, _ text: String, headers: [(String, String)] = []) -> ServerResponse {
        ServerResponse(status: status, headers: headers, body: Array(text.utf8), contentType: "text/plain; charset=utf-8")
    }
}
