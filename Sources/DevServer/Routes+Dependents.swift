import CheckInModels
import DeviceAPI

/// The dependents part of the device API: a watcher device follows other devices (its
/// dependents), reads their status as the backend derives it (`DependentStatusRule`), pings them
/// through their own ping long poll, and tells them "I'm on it" through their notifications.
extension Routes {
    /// `GET /v1/device` and everything under `/v1/dependents`.
    func dependentsAPI(_ request: ServerRequest, device: String) -> ServerResponse {
        if request.path == DeviceAPIPath.device {
            guard request.method == "GET" else { return Self.notAllowed(request, allowed: ["GET"]) }
            return .json(DeviceIdentity(id: device, name: names[device]))
        }
        let rest = request.path.dropFirst(DeviceAPIPath.dependents.count)
        if rest.isEmpty {
            guard request.method == "GET" else { return Self.notAllowed(request, allowed: ["GET"]) }
            return dependentList(watcher: device)
        }
        let parts = rest.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // "/{id}" or "/{id}/ping" or "/{id}/on-it": parts[0] is the empty text before the first slash.
        guard parts.count == 2 || parts.count == 3, parts[0].isEmpty, !parts[1].isEmpty else {
            return .error(404, "no such path in the device API: \(request.path)")
        }
        guard let dependent = DeviceAPIPath.decodedPathSegment(parts[1]) else {
            return .error(400, "the dependent's id in \(request.path) is not valid percent-encoded UTF-8")
        }
        switch (parts.count == 3 ? parts[2] : "", request.method) {
        case ("", "PUT"): return follow(dependent, watcher: device)
        case ("", "DELETE"): return unfollow(dependent, watcher: device)
        case ("", _): return Self.notAllowed(request, allowed: ["PUT", "DELETE"])
        case ("ping", "POST"): return ping(dependent, watcher: device)
        case ("ping", "DELETE"): return withdrawPing(dependent, watcher: device)
        case ("ping", _): return Self.notAllowed(request, allowed: ["POST", "DELETE"])
        case ("on-it", "POST"): return onIt(request, dependent: dependent, watcher: device)
        case ("on-it", _): return Self.notAllowed(request, allowed: ["POST"])
        default: return .error(404, "no such path in the device API: \(request.path)")
        }
    }

    private static func notAllowed(_ request: ServerRequest, allowed: [String]) -> ServerResponse {
        .error(405, "\(request.method) is not allowed on \(request.path)", headers: [("Allow", allowed.joined(separator: ", "))])
    }

    private func dependentList(watcher: String) -> ServerResponse {
        do {
            return .json(DependentList(dependents: try store.dependents(of: watcher).map { try dependent($0, watcher: watcher) }))
        } catch {
            return .error(500, "could not read the dependents: \(error)")
        }
    }

    private func dependent(_ id: String, watcher: String) throws -> WireDependent {
        let heard = lastHeard.withLock { $0[id] }.map { max($0, startedAt) } ?? startedAt
        let facts = try store.facts(about: id, for: watcher, lastHeard: heard)
        let (status, deadline) = DependentStatusRule.judge(facts, now: clock(), silenceAllowance: silenceAllowance)
        return WireDependent(id: id, name: names[id], status: status.rawValue, lastCheckIn: facts.lastCheckIn?.rfc3339Microseconds,
                             deadline: deadline?.rfc3339Microseconds, pingPending: facts.pingPending, onIt: facts.onIt)
    }

    /// `PUT /v1/dependents/{id}`: idempotent; answers the dependent as `GET /v1/dependents` shows it.
    private func follow(_ dependent: String, watcher: String) -> ServerResponse {
        guard knownDevices.contains(dependent) else { return Self.noSuchDevice(dependent) }
        guard dependent != watcher else { return .error(400, "a device cannot watch itself (\(dependent))") }
        do {
            try store.watch(dependent, by: watcher, since: now())
            return .json(try self.dependent(dependent, watcher: watcher))
        } catch {
            return .error(500, "could not store that \(watcher) watches \(dependent): \(error)")
        }
    }

    /// `DELETE /v1/dependents/{id}`: idempotent; the watcher's pending pings on them are withdrawn.
    private func unfollow(_ dependent: String, watcher: String) -> ServerResponse {
        do {
            _ = try store.withdrawPings(on: dependent, from: watcher, at: now())
            try store.unwatch(dependent, by: watcher)
            return ServerResponse(status: 204)
        } catch {
            return .error(500, "could not forget that \(watcher) watches \(dependent): \(error)")
        }
    }

    private static func noSuchDevice(_ id: String) -> ServerResponse {
        .error(404, "no device with id '\(id)' on this backend: check the pairing code, or ask the person for a new one")
    }

    /// Only a watcher that follows `dependent` may ping them or say it is on its way.
    private func refusal(_ dependent: String, watcher: String) -> ServerResponse? {
        guard knownDevices.contains(dependent) else { return Self.noSuchDevice(dependent) }
        do {
            guard try store.dependents(of: watcher).contains(dependent) else {
                return .error(403, "device \(watcher) does not watch \(dependent): add it as a dependent first "
                    + "(PUT \(DeviceAPIPath.dependent(dependent)))")
            }
            return nil
        } catch {
            return .error(500, "could not read the dependents: \(error)")
        }
    }

    /// `POST /v1/dependents/{id}/ping`: a ping on their device, as a responder's, woken at once in
    /// their `GET /v1/pings` long poll. While this watcher's ping waits, asking again answers it.
    private func ping(_ dependent: String, watcher: String) -> ServerResponse {
        if let refusal = refusal(dependent, watcher: watcher) { return refusal }
        do {
            if let pending = try store.pendingPing(on: dependent, from: watcher) { return .json(pending) }
            let ping = try createPing(NewPing(responderName: names[watcher] ?? watcher, responderId: watcher), device: dependent)
            return .json(ping, status: 201)
        } catch {
            return .error(500, "could not create the ping: \(error)")
        }
    }

    /// `DELETE /v1/dependents/{id}/ping`: their device no longer gets this watcher's pings as pending.
    private func withdrawPing(_ dependent: String, watcher: String) -> ServerResponse {
        if let refusal = refusal(dependent, watcher: watcher) { return refusal }
        do {
            _ = try store.withdrawPings(on: dependent, from: watcher, at: now())
            return ServerResponse(status: 204)
        } catch {
            return .error(500, "could not withdraw the ping: \(error)")
        }
    }

    /// `POST /v1/dependents/{id}/on-it`: shown to every watcher until the dependent's next
    /// check-in, and to the dependent as a notification.
    private func onIt(_ request: ServerRequest, dependent: String, watcher: String) -> ServerResponse {
        if let refusal = refusal(dependent, watcher: watcher) { return refusal }
        let body: OnItRequest
        switch APICoding.decode(OnItRequest.self, from: request.body) {
        case let .success(decoded): body = decoded
        case let .failure(problem): return .error(400, "the body is not an OnIt object ({\"watcher\": \"Anna\"}): \(problem.message)")
        }
        let name = body.watcher.filter { !$0.isNewline }
        guard !name.isEmpty, name.count <= 100 else { return .error(400, "watcher must be a name of 1…100 characters") }
        do {
            try store.recordOnIt(dependent, watcher: watcher, name: name, at: now())
            _ = try createNotification(NewNotification(type: NotificationType.alert.rawValue, title: "\(name) is on it",
                                                       body: "\(name) knows you may need help and is on the way.",
                                                       relatedContactId: watcher), device: dependent)
            return ServerResponse(status: 204)
        } catch {
            return .error(500, "could not record that \(name) is on it: \(error)")
        }
    }
}
