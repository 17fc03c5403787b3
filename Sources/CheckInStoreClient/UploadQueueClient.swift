public import CheckInModels
import ComposableCore

/// Rows waiting for one delivery target (check-ins for the backend or a healthchecks check, help
/// alerts, answers to pings), oldest first, as an uploader sees the store.
public struct UploadQueueClient<Item: Sendable>: Sendable {
    public var pending: @Sendable (_ limit: Int) async throws(StoreFailure) -> [Item]
    /// Marks rows as acknowledged by the target at `at`; returns how many were newly marked.
    public var markUploaded: @Sendable (_ ids: [CheckInID], _ at: WallTime) async throws(StoreFailure) -> Int
    public var depth: @Sendable () async throws(StoreFailure) -> Int
    /// Flags rows the target refused for good: they leave the queue, keeping the message.
    public var markRefused: @Sendable (_ refusals: [RefusedItem]) async throws(StoreFailure) -> Int
    /// The refused rows, oldest first.
    public var refused: @Sendable (_ limit: Int) async throws(StoreFailure) -> [RefusedCheckIn]
    public var refusedCount: @Sendable () async throws(StoreFailure) -> Int
    /// Where each of these rows stands with the target (for `history`); nil where the queue
    /// cannot tell row by row.
    public var marks: (@Sendable (_ ids: [CheckInID]) async throws(StoreFailure) -> [CheckInID: DeliveryMark])?

    public init(
        pending: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [Item],
        markUploaded: @escaping @Sendable (_ ids: [CheckInID], _ at: WallTime) async throws(StoreFailure) -> Int,
        depth: @escaping @Sendable () async throws(StoreFailure) -> Int,
        markRefused: @escaping @Sendable (_ refusals: [RefusedItem]) async throws(StoreFailure) -> Int,
        refused: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [RefusedCheckIn],
        refusedCount: @escaping @Sendable () async throws(StoreFailure) -> Int,
        marks: (@Sendable (_ ids: [CheckInID]) async throws(StoreFailure) -> [CheckInID: DeliveryMark])? = nil
    ) {
        self.marks = marks
        self.pending = pending
        self.markUploaded = markUploaded
        self.depth = depth
        self.markRefused = markRefused
        self.refused = refused
        self.refusedCount = refusedCount
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static func failing(_ name: String) -> UploadQueueClient {
        UploadQueueClient(
            pending: { _ throws(StoreFailure) in throw .unexpected("\(name).pending") },
            markUploaded: { _, _ throws(StoreFailure) in throw .unexpected("\(name).markUploaded") },
            depth: { () throws(StoreFailure) in throw .unexpected("\(name).depth") },
            markRefused: { _ throws(StoreFailure) in throw .unexpected("\(name).markRefused") },
            refused: { _ throws(StoreFailure) in throw .unexpected("\(name).refused") },
            refusedCount: { () throws(StoreFailure) in throw .unexpected("\(name).refusedCount") })
    }
}

/// Where one row stands with one delivery target.
public enum DeliveryMark: String, Hashable, Sendable {
    /// The target took it.
    case delivered
    /// Waiting to be delivered.
    case waiting
    /// The target refused it for good.
    case refused
    /// Made before the target was configured: never sent to it.
    case notSent = "not_sent"
}

extension StoreFailure {
    /// Reports an unexpected call to a test value and returns the failure it throws.
    public static func unexpected(_ name: String) -> StoreFailure {
        UnexpectedCall.report(name)
        return StoreFailure(.unavailable, "\(name) is not implemented in this test")
    }
}
