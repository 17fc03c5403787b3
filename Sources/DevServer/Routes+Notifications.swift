import CheckInModels
public import DeviceAPI

/// The notifications part of the device API and its admin side.
extension Routes {
    static let notificationPageSize = 200
    static let maxNotificationChanges = 1000

    /// `GET /v1/notifications?after=CURSOR`.
    func notifications(_ request: ServerRequest, device: String) -> ServerResponse {
        var after: Int64 = 0
        if let text = request.query["after"] {
            guard let value = Int64(text), value >= 0 else {
                return .error(400, "after must be a cursor this server gave out (a non-negative integer), not '\(text)'")
            }
            after = value
        }
        do {
            return .json(try store.notifications(device: device, after: after, limit: Self.notificationPageSize))
        } catch {
            return .error(500, "could not read the notifications: \(error)")
        }
    }

    /// `POST /v1/notifications/changes`: every change is validated first, then all are applied in one
    /// transaction and acknowledged by id.
    func changeNotifications(_ request: ServerRequest, device: String) -> ServerResponse {
        let batch: NotificationChangeBatch
        switch APICoding.decode(NotificationChangeBatch.self, from: request.body) {
        case let .success(decoded): batch = decoded
        case let .failure(problem): return .error(400, "the body is not a NotificationChangeBatch: \(problem.message)")
        }
        guard batch.changes.count <= Self.maxNotificationChanges else {
            return .error(413, "at most \(Self.maxNotificationChanges) changes per request, this one has \(batch.changes.count)")
        }
        for (index, change) in batch.changes.enumerated() {
            if let problem = Self.problem(with: change) {
                return .error(400, "changes[\(index)] (id \(change.id)): \(problem)")
            }
        }
        do {
            try store.applyNotificationChanges(batch.changes, device: device)
        } catch {
            return .error(500, "could not apply the notification changes: \(error)")
        }
        stats.withLock { $0.notificationChangesReceived += batch.changes.count }
        return .json(CheckInAcknowledgement(acknowledged: batch.changes.map(\.id)))
    }

    static func problem(with change: WireNotificationChange) -> String? {
        guard !change.id.isEmpty else { return "id must not be empty" }
        guard let operation = NotificationChange.Operation(rawValue: change.operation) else {
            return "operation must be one of \(NotificationChange.Operation.allCases.map(\.rawValue).joined(separator: ", "))"
        }
        if operation.needsNotificationID {
            guard let id = change.notificationId, !id.isEmpty else { return "\(operation.rawValue) needs notificationId" }
        } else {
            guard change.notificationId == nil else { return "\(operation.rawValue) takes no notificationId" }
            if let cursor = change.throughCursor, Int64(cursor).map({ $0 < 0 }) ?? true {
                return "throughCursor must be a cursor this server gave out, not '\(cursor)'"
            }
        }
        guard WallTime(iso8601: change.at) != nil else { return "at must be RFC 3339 UTC, e.g. 2026-11-22T21:55:19Z" }
        return nil
    }

    /// `POST /admin/notifications?device=ID` with a `NewNotification`.
    func adminCreateNotification(_ request: ServerRequest) -> ServerResponse {
        guard let device = request.query["device"],
              case let .success(new) = APICoding.decode(NewNotification.self, from: request.body) else {
            return .error(400, "give ?device=<id> and a NewNotification body ({\"type\": …, \"title\": …})")
        }
        do {
            return .json(try createNotification(new, device: device), status: 201)
        } catch {
            return .error(400, error.message)
        }
    }

    func createNotification(_ new: NewNotification, device: String) throws(DevServerError) -> WireNotification {
        guard NotificationType(rawValue: new.type) != nil else {
            throw DevServerError("type must be one of \(NotificationType.allCases.map(\.rawValue).joined(separator: ", ")), "
                                 + "not '\(new.type)'")
        }
        guard !new.title.isEmpty else { throw DevServerError("a notification needs a title") }
        do {
            return try store.createNotification(new, id: CheckInID.random().description, createdAt: now(), device: device)
        } catch {
            throw DevServerError("could not store the notification: \(error)")
        }
    }

    /// `GET /admin/notifications?device=ID`: all of them, cleared ones included.
    func adminNotifications(_ request: ServerRequest) -> ServerResponse {
        guard let device = request.query["device"] else { return .error(400, "give ?device=<id>") }
        do {
            return .json(try store.allNotifications(device: device))
        } catch {
            return .error(500, "could not read the notifications: \(error)")
        }
    }
}

extension DevServer {
    /// Creates a notification for `device` as the backend would (the admin endpoint, in-process).
    public func createNotification(_ new: NewNotification, device: String) throws(DevServerError) -> WireNotification {
        try routes.createNotification(new, device: device)
    }

    /// Every notification of `device` as the server has it, cleared ones included, oldest first.
    public func notifications(device: String) throws(DevServerError) -> [WireNotification] {
        do {
            return try routes.store.allNotifications(device: device)
        } catch {
            throw DevServerError("could not read the notifications: \(error)")
        }
    }

    /// Changes made elsewhere (the app), applied as if a device had sent them.
    public func changeNotifications(_ changes: [WireNotificationChange], device: String) throws(DevServerError) {
        do {
            try routes.store.applyNotificationChanges(changes, device: device)
        } catch {
            throw DevServerError("could not apply the notification changes: \(error)")
        }
    }
}
