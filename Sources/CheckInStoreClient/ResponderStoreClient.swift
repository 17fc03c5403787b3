public import CheckInModels
import ComposableCore

/// Where the person's device keeps the watchers it removed from its responders, so that their
/// pings stay refused across a restart.
public struct ResponderStoreClient: Sendable {
    public var removedWatchers: @Sendable () async throws(StoreFailure) -> [RemovedWatcher]
    /// Keeps one removed (replacing an earlier removal of the same id).
    public var removeWatcher: @Sendable (RemovedWatcher) async throws(StoreFailure) -> Void
    /// Lets it back in (nothing if it was not removed).
    public var allowWatcher: @Sendable (_ id: String) async throws(StoreFailure) -> Void

    public init(
        removedWatchers: @escaping @Sendable () async throws(StoreFailure) -> [RemovedWatcher],
        removeWatcher: @escaping @Sendable (RemovedWatcher) async throws(StoreFailure) -> Void,
        allowWatcher: @escaping @Sendable (_ id: String) async throws(StoreFailure) -> Void
    ) {
        self.removedWatchers = removedWatchers
        self.removeWatcher = removeWatcher
        self.allowWatcher = allowWatcher
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = ResponderStoreClient(
        removedWatchers: { () throws(StoreFailure) in throw .unexpected("ResponderStoreClient.removedWatchers") },
        removeWatcher: { _ throws(StoreFailure) in throw .unexpected("ResponderStoreClient.removeWatcher") },
        allowWatcher: { _ throws(StoreFailure) in throw .unexpected("ResponderStoreClient.allowWatcher") })
}
