public import CheckInModels
import ComposableCore

/// Where events for the MQTT broker wait until it has them (the same store as the check-ins; the
/// queue side is an `UploadQueueClient<DeviceEvent>`).
public struct DeviceEventStoreClient: Sendable {
    /// Stores an event at the end of the queue.
    public var append: @Sendable (DeviceEvent) async throws(StoreFailure) -> Void

    public init(append: @escaping @Sendable (DeviceEvent) async throws(StoreFailure) -> Void) {
        self.append = append
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = DeviceEventStoreClient(append: { _ throws(StoreFailure) in
        throw .unexpected("DeviceEventStoreClient.append")
    })
}
