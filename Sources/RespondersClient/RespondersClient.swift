public import CheckInModels
public import UplinkClient

/// A polled source of the people who are told when the person behind this device needs someone:
/// the LifeSignal backend (`GET /v1/responders`) or healthchecks (the integrations of the device's
/// checks, through the management API). Watcher devices paired over MQTT are not polled: their
/// retained registrations arrive on the device's MQTT connection.
///
/// Like `UplinkClient`, every call ends with a result and never throws.
public struct RespondersClient: Sendable {
    /// Which source this is: `backend` or `healthchecks`.
    public var kind: String
    /// Where it talks to, for status and logs (never a token or key).
    public var endpoint: String
    /// Everyone the source would tell, in the source's order.
    public var fetch: @Sendable () async -> Result<[SourcedResponder], UplinkFailure>

    public init(kind: String, endpoint: String,
                fetch: @escaping @Sendable () async -> Result<[SourcedResponder], UplinkFailure>) {
        self.kind = kind
        self.endpoint = endpoint
        self.fetch = fetch
    }

    /// Every call is reported as unexpected (and fails permanently): tests override what they use.
    public static func failing(kind: String = "backend", endpoint: String = "test responders") -> RespondersClient {
        RespondersClient(kind: kind, endpoint: endpoint, fetch: { .failure(.unexpected("RespondersClient.fetch")) })
    }
}
