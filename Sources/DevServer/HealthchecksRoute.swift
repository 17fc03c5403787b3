import Synchronization

/// One ping as a healthchecks.io-compatible check received it (`GET /admin/pings`).
public struct RecordedPing: Codable, Hashable, Sendable {
    /// The check: its uuid, or `<ping-key>/<slug>`.
    public var check: String
    /// `success` (a plain ping) or `log` (`/log`: recorded without changing the check's state).
    public var kind: String
    public var body: String
    public var receivedAt: String
}

/// The ping endpoints of a healthchecks.io-compatible instance, for tests and demos:
/// `POST|GET /ping/<uuid>[/log]` and `/ping/<ping-key>/<slug>[/log]`, answering `200 OK` as
/// healthchecks does. Any check exists (inject a `status` fault with 404 for an unknown one).
/// Pings are kept in memory only.
final class HealthchecksRoute: Sendable {
    static let prefix = "/ping/"
    private let pings = Mutex<[RecordedPing]>([])

    var recorded: [RecordedPing] { pings.withLock { $0 } }

    func handle(_ request: ServerRequest, receivedAt: String) -> ServerResponse {
        guard request.method == "POST" || request.method == "GET" || request.method == "HEAD" else {
            return .error(405, "pings are GET, HEAD or POST", headers: [("Allow", "GET, HEAD, POST")])
        }
        var parts = request.path.dropFirst(Self.prefix.count).split(separator: "/", omittingEmptySubsequences: false)
        let kind = parts.last == "log" ? "log" : "success"
        if kind == "log" { parts.removeLast() }
        guard (1...2).contains(parts.count), parts.allSatisfy({ !$0.isEmpty }) else {
            return .error(400, "expected /ping/<uuid> or /ping/<ping-key>/<slug>, optionally followed by /log")
        }
        let ping = RecordedPing(check: parts.joined(separator: "/"), kind: kind,
                                body: String(decoding: request.body, as: UTF8.self), receivedAt: receivedAt)
        pings.withLock { $0.append(ping) }
        return ServerResponse(status: 200, body: Array("OK".utf8))
    }
}
