public import CheckInModels
public import DeviceAPI
import Glibc
import LinuxIO
import SQLiteDatabase
import Synchronization

/// The reference backend: the device API of docs/device-api.yaml on 127.0.0.1, with its own
/// SQLite file, bearer tokens per device, de-duplication of check-ins by id, settings with a
/// version, and an admin API (`/admin/...`, no token: loopback only) to inject faults and read
/// what it stored.
public final class DevServer: Sendable {
    public struct Options: Sendable {
        public var databasePath: String
        /// 0 = any free port (see `port`).
        public var port: UInt16
        /// Device id by token.
        public var tokens: [String: String]
        public var faults: FaultUpdate
        /// The healthchecks project's keys (`/ping/…`, `/api/v3/…`).
        public var healthchecks: HealthchecksProject
        /// The name the family gave each device, by device id (`GET /v1/device`, `GET /v1/dependents`).
        public var names: [String: String]
        /// A dependent whose device made no request for longer than this is `silent`
        /// (`DependentStatusRule`).
        public var silenceAllowance: Duration
        /// The server's wall clock: what it stamps on what it receives and judges deadlines by.
        /// Tests pass a clock they move.
        public var clock: @Sendable () -> WallTime

        public init(databasePath: String, port: UInt16 = 0, tokens: [String: String], faults: FaultUpdate = FaultUpdate(),
                    healthchecks: HealthchecksProject = HealthchecksProject(), names: [String: String] = [:],
                    silenceAllowance: Duration = DependentStatusRule.defaultSilenceAllowance,
                    clock: @escaping @Sendable () -> WallTime = DevServer.systemClock) {
            self.databasePath = databasePath
            self.port = port
            self.tokens = tokens
            self.faults = faults
            self.healthchecks = healthchecks
            self.names = names
            self.silenceAllowance = silenceAllowance
            self.clock = clock
        }
    }

    /// CLOCK_REALTIME.
    @Sendable public static func systemClock() -> WallTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return WallTime(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }

    public let port: UInt16
    private let server: HTTPServer
    let routes: Routes

    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public init(_ options: Options) throws(DevServerError) {
        let store: DevStore
        do {
            store = try DevStore(path: options.databasePath)
        } catch {
            throw DevServerError("cannot open the dev server's database \(options.databasePath): \(error)")
        }
        var plan = FaultPlan()
        plan.apply(options.faults)
        let routes = Routes(store: store, tokens: options.tokens, plan: plan, healthchecks: options.healthchecks,
                            names: options.names, silenceAllowance: options.silenceAllowance, clock: options.clock)
        self.routes = routes
        do {
            server = try HTTPServer(port: options.port) { request in routes.handle(request) }
        } catch {
            throw DevServerError("cannot listen on 127.0.0.1:\(options.port): \(error)")
        }
        port = server.port
    }

    public func stop() {
        routes.pingSignal.stop()  // long polls in progress answer now
        server.stop()
    }

    // The admin API, for a test hosting the server in-process (the same as `/admin/...`).

    /// Appends scheduled faults and/or changes the standing ones.
    public func inject(_ update: FaultUpdate) {
        routes.plan.withLock { $0.apply(update) }
    }

    /// What the server stored, in arrival order (all devices when `device` is nil).
    public func storedCheckIns(device: String? = nil) throws(DevServerError) -> [StoredCheckIn] {
        do {
            return try routes.store.checkIns(device: device)
        } catch {
            throw DevServerError("could not read the stored check-ins: \(error)")
        }
    }

    /// A responder pings `device` (as the app would); a long poll in progress answers at once.
    @discardableResult
    public func createPing(device: String, responderName: String, responderID: String? = nil) throws(DevServerError) -> Ping {
        do {
            return try routes.createPing(NewPing(responderName: responderName, responderId: responderID), device: device)
        } catch {
            throw DevServerError("could not create the ping: \(error)")
        }
    }

    /// Every ping of `device`, with when it was answered.
    public func pings(device: String) throws(DevServerError) -> [StoredPing] {
        do {
            return try routes.store.pings(device: device)
        } catch {
            throw DevServerError("could not read the pings: \(error)")
        }
    }

    /// The ping responses the server stored for `device`, in arrival order.
    public func storedPingResponses(device: String) throws(DevServerError) -> [StoredPingResponse] {
        do {
            return try routes.store.pingResponses(device: device)
        } catch {
            throw DevServerError("could not read the ping responses: \(error)")
        }
    }

    /// The device events the server stored, each once, in arrival order.
    public func storedEvents(device: String? = nil) throws(DevServerError) -> [StoredEvent] {
        do {
            return try routes.store.events(device: device)
        } catch {
            throw DevServerError("could not read the stored events: \(error)")
        }
    }

    /// The help alerts the server stored, each once, in arrival order.
    public func storedAlerts(device: String? = nil) throws(DevServerError) -> [StoredAlert] {
        do {
            return try routes.store.checkIns(device: device, in: .alerts).map(StoredAlert.init)
        } catch {
            throw DevServerError("could not read the stored alerts: \(error)")
        }
    }

    public var stats: ServerStats {
        routes.stats.withLock { $0 }
    }

    /// The healthchecks-style pings received at `/ping/...`, in arrival order.
    public var healthchecksPings: [RecordedPing] {
        routes.healthchecksRoute.recorded
    }

    /// The healthchecks checks: made through the management API, or by their first ping.
    public var healthchecksChecks: [DevCheck] {
        routes.healthchecksRoute.checks
    }

    /// Adds contact `id` to `device`'s responders, or replaces it, as the app would
    /// (`PUT /admin/contacts`); a contact the API would refuse is refused, saying why.
    public func setContact(_ contact: ResponderContact, id: String, device: String) throws(DevServerError) {
        let problem: String?
        do {
            problem = try routes.saveContact(contact, id: id, device: device)
        } catch {
            throw DevServerError("could not store the contact: \(error)")
        }
        if let problem { throw DevServerError(problem) }
    }

    /// Removes contact `id` from `device`'s responders; idempotent.
    public func removeContact(id: String, device: String) throws(DevServerError) {
        do {
            try routes.store.removeContact(id: id, device: device)
        } catch {
            throw DevServerError("could not remove the contact: \(error)")
        }
    }

    /// Adds an integration to the healthchecks project; like healthchecks' own pages, it is
    /// assigned to every check there is unless `assignedToAllChecks` is false.
    public func addHealthchecksIntegration(_ integration: HealthchecksChannel, assignedToAllChecks: Bool = true) {
        routes.healthchecksRoute.add(integration, assignedToAllChecks: assignedToAllChecks)
    }

    /// A device's settings as the server has them (the defaults, version 0, if never set).
    public func settings(device: String) throws(DevServerError) -> DeviceSettings {
        do {
            return try routes.store.settings(device: device) ?? Routes.defaultSettings
        } catch {
            throw DevServerError("could not read the settings: \(error)")
        }
    }

    /// Sets a device's settings as the app would, version included.
    public func setSettings(_ settings: DeviceSettings, device: String) throws(DevServerError) {
        do {
            try routes.store.saveSettings(settings, device: device)
        } catch {
            throw DevServerError("could not save the settings: \(error)")
        }
    }
}

public struct DevServerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Request routing and the API's behaviour.
final class Routes: Sendable {
    let store: DevStore
    let tokens: [String: String]
    let plan: Mutex<FaultPlan>
    let stats = Mutex(ServerStats())
    /// Wakes `GET /v1/pings` long polls when a ping is created.
    let pingSignal = PingSignal()
    /// The healthchecks.io-compatible ping endpoints and management API (`/ping/...`, `/api/v3/...`).
    let healthchecksRoute: HealthchecksRoute
    /// When each device last made a request, kept in memory: a write to the database per request
    /// would cost every upload an fsync. A server that restarts counts from its start
    /// (`startedAt`), so nobody is silent merely because the server was down.
    let lastHeard = Mutex<[String: WallTime]>([:])
    let startedAt: WallTime
    /// Device names by device id.
    let names: [String: String]
    let silenceAllowance: Duration
    let clock: @Sendable () -> WallTime
    static let maxBatch = 1000

    init(store: DevStore, tokens: [String: String], plan: FaultPlan, healthchecks: HealthchecksProject, names: [String: String],
         silenceAllowance: Duration, clock: @escaping @Sendable () -> WallTime) {
        self.store = store
        self.tokens = tokens
        self.plan = Mutex(plan)
        self.names = names
        self.silenceAllowance = silenceAllowance
        self.clock = clock
        startedAt = clock()
        healthchecksRoute = HealthchecksRoute(project: healthchecks)
    }

    /// Every device the server has a token for.
    var knownDevices: Set<String> { Set(tokens.values) }

    func handle(_ request: ServerRequest) -> HTTPServer.Outcome {
        if request.path.hasPrefix("/admin/") { return .respond(admin(request)) }
        let isPing = HealthchecksRoute.handles(request.path)
        guard request.path.hasPrefix("/v1/") || isPing else { return .respond(.error(404, "no such path: \(request.path)")) }
        func serve(_ request: ServerRequest) -> ServerResponse {
            isPing ? healthchecksRoute.handle(request, receivedAt: now()) : deviceAPI(request)
        }
        let operation = "\(request.method) \(request.path)"
        stats.withLock { stats in
            stats.deviceRequests += 1
            stats.requestsByOperation[operation, default: 0] += 1
        }

        var generator = SystemRandomNumberGenerator()
        let (fault, latency) = plan.withLock { plan in (plan.next(for: operation, using: &generator), plan.latencyMilliseconds) }
        if latency > 0 { sleepMilliseconds(latency) }
        if let fault {
            stats.withLock { $0.faultsInjected += 1 }
            switch fault.kind {
            case .status:
                let headers = fault.retryAfterSeconds.map { [("Retry-After", String($0))] } ?? []
                return .respond(.error(fault.status ?? 503, "injected fault: HTTP \(fault.status ?? 503)", headers: headers))
            case .drop:
                return .drop
            case .malformedReply:
                return .respond(ServerResponse(status: 200, body: Array("<html>surprise</html>".utf8)))
            case .htmlPage:
                // What a proxy in front of the server answers: a web page, not the API's reply.
                let status = fault.status ?? 502
                let page = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>\(status) \(ServerResponse.reason(status))"
                    + "</title>\n<style>body{font:14px sans-serif}</style></head>\n<body><h1>\(ServerResponse.reason(status))</h1>"
                    + "<p>The server is temporarily unable to service your request.</p></body></html>\n"
                return .respond(ServerResponse(status: status, body: Array(page.utf8), contentType: "text/html; charset=utf-8"))
            case .delay:
                sleepMilliseconds(fault.delayMilliseconds ?? 1000)
            case .dropAfterStore:  // stores check-ins, alerts or healthchecks pings, then loses the acknowledgement
                _ = serve(request)
                return .drop
            }
        }
        return .respond(serve(request))
    }

    // MARK: Device API

    private func deviceAPI(_ request: ServerRequest) -> ServerResponse {
        guard let device = authenticate(request) else {
            return .error(401, "missing or unknown bearer token; check the device's [uplink] token_file", headers: [
                ("WWW-Authenticate", "Bearer"),
            ])
        }
        // Every request is word from the device: what tells a watcher it is not silent.
        let time = clock()
        lastHeard.withLock { $0[device] = time }
        if request.path == DeviceAPIPath.device || request.path.hasPrefix(DeviceAPIPath.dependents) {
            return dependentsAPI(request, device: device)
        }
        guard let allowed = Self.operations[request.path] else {
            return .error(404, "no such path in the device API: \(request.path)")
        }
        guard allowed.contains(request.method) else {
            return .error(405, "\(request.method) is not allowed on \(request.path)",
                          headers: [("Allow", allowed.joined(separator: ", "))])
        }
        switch (request.method, request.path) {
        case ("POST", DeviceAPIPath.checkIns):
            return uploadCheckIns(request, device: device)
        case ("POST", DeviceAPIPath.heartbeat):
            guard case let .success(heartbeat) = APICoding.decode(Heartbeat.self, from: request.body) else {
                return .error(400, "heartbeat body is not a Heartbeat object")
            }
            guard !heartbeat.bootId.isEmpty, heartbeat.uptimeSeconds >= 0, heartbeat.queueDepth >= 0 else {
                return .error(400, "bootId must not be empty; uptimeSeconds and queueDepth must not be negative")
            }
            stats.withLock { $0.heartbeats += 1 }
            return ServerResponse(status: 204)
        case ("GET", DeviceAPIPath.settings):
            return settings(device: device)
        case ("PUT", DeviceAPIPath.settings):
            return putSettings(request, device: device)
        case ("GET", DeviceAPIPath.notifications):
            return notifications(request, device: device)
        case ("POST", DeviceAPIPath.notificationChanges):
            return changeNotifications(request, device: device)
        case ("GET", DeviceAPIPath.pings):
            return pendingPings(request, device: device)
        case ("POST", DeviceAPIPath.pingResponses):
            return storePingResponses(request, device: device)
        case ("POST", DeviceAPIPath.alerts):
            return storeAlert(request, device: device)
        case ("POST", DeviceAPIPath.events):
            return storeEvent(request, device: device)
        case ("GET", DeviceAPIPath.responders):
            return responderList(device: device)
        default:
            return .error(501, "\(request.method) \(request.path) is specified but not implemented by this reference server yet")
        }
    }

    /// Every operation of docs/device-api.yaml: path → methods.
    static let operations: [String: [String]] = [
        DeviceAPIPath.checkIns: ["POST"],
        DeviceAPIPath.heartbeat: ["POST"],
        DeviceAPIPath.settings: ["GET", "PUT"],
        DeviceAPIPath.pings: ["GET"],
        DeviceAPIPath.pingResponses: ["POST"],
        "/v1/notifications": ["GET"],
        "/v1/notifications/changes": ["POST"],
        DeviceAPIPath.alerts: ["POST"],
        DeviceAPIPath.events: ["POST"],
        DeviceAPIPath.responders: ["GET"],
    ]

    private func authenticate(_ request: ServerRequest) -> String? {
        guard let header = request.headers["authorization"], header.hasPrefix("Bearer ") else { return nil }
        return tokens[String(header.dropFirst("Bearer ".count))]
    }

    private func uploadCheckIns(_ request: ServerRequest, device: String) -> ServerResponse {
        let batch: CheckInBatch
        // The layout the device writes is read directly; anything else goes through JSONDecoder.
        switch CheckInBatch.decodeCanonical(request.body).map(Result.success)
            ?? APICoding.decode(CheckInBatch.self, from: request.body) {
        case let .success(decoded): batch = decoded
        case let .failure(problem): return .error(400, "the body is not a CheckInBatch: \(problem.message)")
        }
        guard batch.checkIns.count <= Self.maxBatch else {
            return .error(413, "a batch may hold at most \(Self.maxBatch) check-ins, this one has \(batch.checkIns.count)")
        }
        // Per-item rejection: an item the server will never store is refused by id with the
        // reason; the rest of the batch is stored and acknowledged as usual.
        let refusedIDs = plan.withLock { $0.rejectedCheckInIDs }
        var accepted: [UploadedCheckIn] = []
        var rejected: [RejectedCheckIn] = []
        for (index, item) in batch.checkIns.enumerated() {
            if let problem = Self.problem(with: item) {
                rejected.append(RejectedCheckIn(id: item.id, error: "checkIns[\(index)]: \(problem)"))
            } else if refusedIDs.contains(item.id) {
                rejected.append(RejectedCheckIn(id: item.id, error: "checkIns[\(index)]: refused by an injected fault "
                                                + "(rejectCheckInIDs)"))
            } else {
                accepted.append(item)
            }
        }
        do {
            try store.store(accepted, device: device, receivedAt: now())
        } catch {
            return .error(500, "could not store the check-ins: \(error)")
        }
        stats.withLock { stats in
            stats.checkInBatches += 1
            stats.largestBatch = max(stats.largestBatch, batch.checkIns.count)
            stats.checkInsReceived += batch.checkIns.count
            stats.checkInsRejected += rejected.count
        }
        return .json(CheckInAcknowledgement(acknowledged: accepted.map(\.id), rejected: rejected.isEmpty ? nil : rejected))
    }

    /// A help alert, stored once per id; a real backend would notify the responders on the first receipt.
    private func storeAlert(_ request: ServerRequest, device: String) -> ServerResponse {
        let alert: UploadedAlert
        switch APICoding.decode(UploadedAlert.self, from: request.body) {
        case let .success(decoded): alert = decoded
        case let .failure(problem): return .error(400, "the body is not an Alert: \(problem.message)")
        }
        if let problem = Self.problem(with: alert) { return .error(400, "alert \(alert.id): \(problem)") }
        do {
            try store.store([alert], in: .alerts, device: device, receivedAt: now())
        } catch {
            return .error(500, "could not store the alert: \(error)")
        }
        stats.withLock { $0.alertsReceived += 1 }
        return .json(CheckInAcknowledgement(acknowledged: [alert.id]))
    }

    /// One of the device's own events, stored once per id; a real backend would tell the family.
    private func storeEvent(_ request: ServerRequest, device: String) -> ServerResponse {
        let event: UploadedEvent
        switch APICoding.decode(UploadedEvent.self, from: request.body) {
        case let .success(decoded): event = decoded
        case let .failure(problem): return .error(400, "the body is not a DeviceEvent: \(problem.message)")
        }
        guard let id = CheckInID(event.id), id.description == event.id else { return .error(400, "event id must be a lowercase UUID") }
        guard PowerEventKind(rawValue: event.kind) != nil else {
            return .error(400, "kind must be one of \(PowerEventKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard WallTime(iso8601: event.wallTime) != nil else { return .error(400, "wallTime must be RFC 3339 UTC") }
        do {
            try store.storeEvent(event, device: device, receivedAt: now())
        } catch {
            return .error(500, "could not store the event: \(error)")
        }
        return .json(CheckInAcknowledgement(acknowledged: [event.id]))
    }

    static func problem(with item: UploadedCheckIn) -> String? {
        guard let id = CheckInID(item.id), id.description == item.id else { return "id must be a lowercase UUID" }
        guard WallTime(iso8601: item.wallTime) != nil else { return "wallTime must be RFC 3339 UTC, e.g. 2026-11-22T21:55:19.042137Z" }
        guard CheckInSource(rawValue: item.source) != nil else { return "source must be button, cli or mqtt" }
        guard !item.bootId.isEmpty, item.uptimeMicroseconds >= 0 else { return "bootId and a non-negative uptimeMicroseconds are required" }
        return nil
    }

    static let defaultSettings = DeviceSettings(intervalSeconds: 86_400, reminderSeconds: 7_200, version: 0)

    private func settings(device: String) -> ServerResponse {
        do {
            return .json(try store.settings(device: device) ?? Self.defaultSettings)
        } catch {
            return .error(500, "could not read the settings: \(error)")
        }
    }

    /// Newer wins: a version not above the stored one is refused with 409 and the stored settings.
    private func putSettings(_ request: ServerRequest, device: String) -> ServerResponse {
        guard case let .success(proposed) = APICoding.decode(DeviceSettings.self, from: request.body) else {
            return .error(400, "the body is not a DeviceSettings object")
        }
        guard proposed.intervalSeconds > 0, (0..<proposed.intervalSeconds).contains(proposed.reminderSeconds) else {
            return .error(400, "intervalSeconds must be positive and reminderSeconds shorter than it")
        }
        do {
            let current = try store.settings(device: device) ?? Self.defaultSettings
            guard proposed.version > current.version else { return .json(current, status: 409) }
            try store.saveSettings(proposed, device: device)
            return .json(proposed)
        } catch {
            return .error(500, "could not save the settings: \(error)")
        }
    }

    // MARK: Admin API

    private func admin(_ request: ServerRequest) -> ServerResponse {
        switch (request.method, request.path) {
        case ("POST", "/admin/faults"):
            guard case let .success(update) = APICoding.decode(FaultUpdate.self, from: request.body) else {
                return .error(400, "the body is not a FaultUpdate object")
            }
            plan.withLock { $0.apply(update) }
            return ServerResponse(status: 204)
        case ("GET", "/admin/check-ins"):
            do {
                return .json(try store.checkIns(device: request.query["device"]))
            } catch {
                return .error(500, "could not read the check-ins: \(error)")
            }
        case ("POST", "/admin/notifications"):
            return adminCreateNotification(request)
        case ("GET", "/admin/notifications"):
            return adminNotifications(request)
        case ("POST", "/admin/pings"):
            // A responder pings the device (the app's side).
            guard let device = request.query["device"],
                  case let .success(new) = APICoding.decode(NewPing.self, from: request.body), !new.responderName.isEmpty else {
                return .error(400, "give ?device=<id> and a body like {\"responderName\": \"Alice\"}")
            }
            do {
                return .json(try createPing(new, device: device), status: 201)
            } catch {
                return .error(500, "could not create the ping: \(error)")
            }
        case ("GET", "/admin/pings"):
            guard let device = request.query["device"] else { return .error(400, "give ?device=<id>") }
            do {
                return .json(try store.pings(device: device))
            } catch {
                return .error(500, "could not read the pings: \(error)")
            }
        case ("GET", "/admin/ping-responses"):
            guard let device = request.query["device"] else { return .error(400, "give ?device=<id>") }
            do {
                return .json(try store.pingResponses(device: device))
            } catch {
                return .error(500, "could not read the ping responses: \(error)")
            }
        case ("GET", "/admin/alerts"):
            do {
                return .json(try store.checkIns(device: request.query["device"], in: .alerts).map(StoredAlert.init))
            } catch {
                return .error(500, "could not read the alerts: \(error)")
            }
        case ("GET", "/admin/events"):
            do {
                return .json(try store.events(device: request.query["device"]))
            } catch {
                return .error(500, "could not read the events: \(error)")
            }
        case (_, "/admin/contacts"):
            return adminContacts(request)
        case ("GET", "/admin/healthchecks-pings"):
            return .json(healthchecksRoute.recorded)
        case ("GET", "/admin/healthchecks-checks"):
            return .json(healthchecksRoute.checks)
        case ("GET", "/admin/stats"):
            return .json(stats.withLock { $0 })
        case ("PUT", "/admin/settings"):
            // The app side changing settings: stored as given, version included.
            guard let device = request.query["device"],
                  case let .success(settings) = APICoding.decode(DeviceSettings.self, from: request.body) else {
                return .error(400, "give ?device=<id> and a DeviceSettings body")
            }
            do {
                try store.saveSettings(settings, device: device)
                return .json(settings)
            } catch {
                return .error(500, "could not save the settings: \(error)")
            }
        default:
            return .error(404, "no such admin endpoint: \(request.method) \(request.path)")
        }
    }

    // MARK: Pings

    func createPing(_ new: NewPing, device: String) throws(SQLiteError) -> Ping {
        let id = CheckInID.random().description
        let ping = Ping(id: id, responderId: new.responderId ?? "responder-" + new.responderName.lowercased(),
                        responderName: new.responderName, createdAt: now())
        try store.createPing(ping, device: device)
        pingSignal.signal()
        return ping
    }

    /// Long poll: answers at once when pings are pending after `after`, otherwise holds the
    /// connection's thread asleep until a ping is created or `wait` seconds have passed.
    private func pendingPings(_ request: ServerRequest, device: String) -> ServerResponse {
        let wait = request.query["wait"].map { Int($0) } ?? 0
        guard let wait, (0...DeviceAPIPath.longestPingWait).contains(wait) else {
            return .error(400, "wait must be a whole number of seconds, 0…\(DeviceAPIPath.longestPingWait)")
        }
        let after = request.query["after"].map { Int64($0) } ?? 0
        guard let after, after >= 0 else { return .error(400, "after must be a cursor this server returned") }
        let deadline = PingSignal.deadline(inSeconds: wait)
        while true {
            let seen = pingSignal.current  // read before looking, so a ping created in between is not missed
            let list: PingList
            do {
                list = try store.pendingPings(device: device, after: after)
            } catch {
                return .error(500, "could not read the pings: \(error)")
            }
            guard list.pings.isEmpty, pingSignal.wait(after: seen, until: deadline) else { return .json(list) }
        }
    }

    private func storePingResponses(_ request: ServerRequest, device: String) -> ServerResponse {
        let batch: PingResponseBatch
        switch APICoding.decode(PingResponseBatch.self, from: request.body) {
        case let .success(decoded): batch = decoded
        case let .failure(problem): return .error(400, "the body is not a PingResponseBatch: \(problem.message)")
        }
        guard batch.responses.count <= Self.maxBatch else {
            return .error(413, "a batch may hold at most \(Self.maxBatch) responses, this one has \(batch.responses.count)")
        }
        for (index, item) in batch.responses.enumerated() {
            guard let id = CheckInID(item.id), id.description == item.id, CheckInID(item.checkInId) != nil else {
                return .error(400, "responses[\(index)]: id and checkInId must be lowercase UUIDs")
            }
            guard !item.pingId.isEmpty, WallTime(iso8601: item.wallTime) != nil else {
                return .error(400, "responses[\(index)] (id \(item.id)): pingId is required and wallTime must be RFC 3339 UTC")
            }
        }
        do {
            try store.storeResponses(batch.responses, device: device, receivedAt: now())
        } catch {
            return .error(500, "could not store the ping responses: \(error)")
        }
        stats.withLock { $0.pingResponsesReceived += batch.responses.count }
        return .json(CheckInAcknowledgement(acknowledged: batch.responses.map(\.id)))
    }

    private func sleepMilliseconds(_ milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    /// The server's clock as RFC 3339 with microseconds, as it stamps what it receives.
    func now() -> String {
        clock().rfc3339Microseconds
    }
}

extension ServerResponse {
    static func json<T: Encodable>(_ value: T, status: Int = 200) -> ServerResponse {
        ServerResponse(status: status, body: APICoding.encode(value))
    }
}
