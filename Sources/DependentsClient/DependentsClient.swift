public import CheckInModels
import ComposableCore
public import UplinkClient

/// A polled source of dependents' statuses, as an injectable value: the LifeSignal backend
/// (`GET /v1/dependents`) or healthchecks (a read-only key). MQTT peers are not polled: their
/// retained state arrives on the device's MQTT connection (`DependentsFeature.Action.peerMessage`).
///
/// Like `UplinkClient`, every call ends with a result and never throws.
public struct DependentsClient: Sendable {
    /// Which source this is: `backend` or `healthchecks`.
    public var kind: String
    /// Where it talks to, for status and logs (never a token or key).
    public var endpoint: String
    /// Every dependent the source knows, keyed by `DependentSource.address` (the backend's id, the
    /// check's slug and UUID both).
    public var fetch: @Sendable () async -> Result<[String: SourcedDependent], UplinkFailure>
    /// Asks them "are you OK?" (a ping on their device).
    public var ping: @Sendable (_ address: String) async -> Result<Void, UplinkFailure>
    /// Withdraws the watcher's ping.
    public var clearPing: @Sendable (_ address: String) async -> Result<Void, UplinkFailure>
    /// Tells them, and the other watchers, that `watcher` is on the way.
    public var onIt: @Sendable (_ address: String, _ watcher: String) async -> Result<Void, UplinkFailure>
    /// Starts following them (the backend: this watcher now watches that device; healthchecks:
    /// the check is found). An address the source does not know fails permanently, naming it.
    public var add: @Sendable (_ address: String) async -> Result<SourcedDependent, UplinkFailure>
    /// Stops following them; following nobody at that address already is not a failure.
    public var remove: @Sendable (_ address: String) async -> Result<Void, UplinkFailure>

    public init(
        kind: String, endpoint: String,
        fetch: @escaping @Sendable () async -> Result<[String: SourcedDependent], UplinkFailure>,
        ping: @escaping @Sendable (_ address: String) async -> Result<Void, UplinkFailure>,
        clearPing: @escaping @Sendable (_ address: String) async -> Result<Void, UplinkFailure>,
        onIt: @escaping @Sendable (_ address: String, _ watcher: String) async -> Result<Void, UplinkFailure>,
        add: @escaping @Sendable (_ address: String) async -> Result<SourcedDependent, UplinkFailure>,
        remove: @escaping @Sendable (_ address: String) async -> Result<Void, UplinkFailure>
    ) {
        self.kind = kind
        self.endpoint = endpoint
        self.fetch = fetch
        self.ping = ping
        self.clearPing = clearPing
        self.onIt = onIt
        self.add = add
        self.remove = remove
    }

    /// Every call is reported as unexpected (and fails permanently): tests override what they use.
    public static func failing(kind: String = "backend", endpoint: String = "test dependents") -> DependentsClient {
        DependentsClient(
            kind: kind, endpoint: endpoint,
            fetch: { .failure(.unexpected("DependentsClient.fetch")) },
            ping: { _ in .failure(.unexpected("DependentsClient.ping")) },
            clearPing: { _ in .failure(.unexpected("DependentsClient.clearPing")) },
            onIt: { _, _ in .failure(.unexpected("DependentsClient.onIt")) },
            add: { _ in .failure(.unexpected("DependentsClient.add")) },
            remove: { _ in .failure(.unexpected("DependentsClient.remove")) })
    }
}

/// One dependent as a polled source reports them: the name it knows them by, and their status.
public struct SourcedDependent: Hashable, Sendable {
    public var name: String
    public var report: DependentReport

    public init(name: String, report: DependentReport) {
        self.name = name
        self.report = report
    }
}
