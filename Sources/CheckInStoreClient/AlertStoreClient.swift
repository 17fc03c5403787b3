public import CheckInModels

/// Where help alerts are kept until the backend has acknowledged them (the same durable store as
/// the check-ins). `record` returns only once the alert's transaction is durable.
public struct AlertStoreClient: Sendable {
    /// Durably stores a new, pending alert and returns it as stored.
    public var record: @Sendable (AlertRecord) async throws(StoreFailure) -> AlertRecord
    /// Alerts the backend has not acknowledged yet, oldest first.
    public var pending: @Sendable () async throws(StoreFailure) -> [AlertRecord]

    public init(
        record: @escaping @Sendable (AlertRecord) async throws(StoreFailure) -> AlertRecord,
        pending: @escaping @Sendable () async throws(StoreFailure) -> [AlertRecord]
    ) {
        self.record = record
        self.pending = pending
    }

    /// A store that keeps no alerts: every write fails and says so (never a silent success).
    public static let unavailable = AlertStoreClient(
        record: { _ throws(StoreFailure) in throw StoreFailure(.unavailable, "this device's store keeps no alerts") },
        pending: { [] }
    )
}
