public import CheckInModels
public import CheckInStoreClient

/// What stops the store keeping check-ins, with what a person can do about it.
public struct StoreProblem: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        /// Full disk, read-only file system, an I/O error: nothing new reaches the disk.
        case cannotWrite = "store_cannot_write"
        /// The open database is no longer the file at the configured path.
        case fileMovedOrReplaced = "store_file_moved"
        /// The file at the path belongs to a newer release or to another program.
        case schemaRefused = "store_schema_refused"
        /// The store cannot be opened at all (its directory, permissions, a damaged file).
        case cannotOpen = "store_cannot_open"
    }

    public var kind: Kind
    public var failure: StoreFailure
    public var since: WallTime

    public init(_ failure: StoreFailure, since: WallTime) {
        self.failure = failure
        self.since = since
        kind = switch failure.kind {
        case .full, .readOnly, .other: .cannotWrite
        case .moved: .fileMovedOrReplaced
        case .newerSchema: .schemaRefused
        case .corrupt, .unavailable: .cannotOpen
        }
    }

    /// What a person can do about it; the device retries by itself meanwhile.
    public var advice: String {
        switch (kind, failure.kind) {
        case (_, .full):
            "free space on the disk that holds the store; the device retries by itself and recovers once it can write"
        case (_, .readOnly):
            "make the file system (or the store's directory) writable again; the device retries by itself"
        case (.fileMovedOrReplaced, _):
            "the device is putting the store back at its path with every check-in it still holds; if this stays, restart it"
        case (.schemaRefused, _):
            "install the release that wrote the file again, or move the file aside to start a fresh store; the device retries by itself"
        case (.cannotOpen, _):
            "check the store's path, directory and permissions (lifesignalctl doctor); the device retries by itself"
        default:
            "check the disk and the system log; the device retries by itself"
        }
    }
}
