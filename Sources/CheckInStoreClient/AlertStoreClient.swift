public import CheckInModels
import ComposableCore

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

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = AlertStoreClient(
        record: { _ throws(StoreFailure) in throw .unexpected("AlertStoreClient.record") },
        pending: { () throws(StoreFailure) in throw .unexpected("AlertStoreClient.pending") }
    )
}
