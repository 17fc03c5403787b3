public import CheckInModels
import ComposableCore

/// Where a watcher keeps the dependents added by a pairing code and how it sorts them, so both
/// survive a restart.
public struct DependentStoreClient: Sendable {
    /// The dependents added by code (not those in the config) and the chosen sort option.
    public var load: @Sendable () async throws(StoreFailure) -> StoredDependents
    /// Adds one, or replaces the one of the same name.
    public var add: @Sendable (DependentEntry) async throws(StoreFailure) -> Void
    /// Removes the one of this name (nothing if there is none).
    public var remove: @Sendable (_ name: String) async throws(StoreFailure) -> Void
    public var saveSortOption: @Sendable (DependentsSortOption) async throws(StoreFailure) -> Void

    public init(
        load: @escaping @Sendable () async throws(StoreFailure) -> StoredDependents,
        add: @escaping @Sendable (DependentEntry) async throws(StoreFailure) -> Void,
        remove: @escaping @Sendable (_ name: String) async throws(StoreFailure) -> Void,
        saveSortOption: @escaping @Sendable (DependentsSortOption) async throws(StoreFailure) -> Void
    ) {
        self.load = load
        self.add = add
        self.remove = remove
        self.saveSortOption = saveSortOption
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = DependentStoreClient(
        load: { () throws(StoreFailure) in throw .unexpected("DependentStoreClient.load") },
        add: { _ throws(StoreFailure) in throw .unexpected("DependentStoreClient.add") },
        remove: { _ throws(StoreFailure) in throw .unexpected("DependentStoreClient.remove") },
        saveSortOption: { _ throws(StoreFailure) in throw .unexpected("DependentStoreClient.saveSortOption") })
}

/// What the store holds for a watcher.
public struct StoredDependents: Hashable, Sendable {
    public var entries: [DependentEntry]
    /// Nil until someone chose one.
    public var sortOption: DependentsSortOption?

    public init(entries: [DependentEntry] = [], sortOption: DependentsSortOption? = nil) {
        self.entries = entries
        self.sortOption = sortOption
    }
}
