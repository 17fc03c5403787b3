public import CheckInStoreClient
public import LinuxIO

/// The live store as the daemon holds it: the check-in database at one path, opened when first
/// needed, on one store thread for the owner's whole life (a database opened again, or recovered,
/// keeps that thread).
///
/// It decides nothing: every operation succeeds or throws a precise `StoreFailure`. When to open,
/// probe, retry or recover is the caller's decision (the device's reducers).
public actor CheckInStoreOwner {
    /// The database file.
    public nonisolated let path: String
    /// The store thread: this owner and every database it opens run on it.
    public nonisolated let executor: SerialThreadExecutor
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The open database, nil until opened (or after `close`).
    public private(set) var database: CheckInDatabase?

    /// Starts the store thread; opens nothing yet.
    public init(path: String) throws(StoreFailure) {
        self.path = path
        executor = try CheckInDatabase.makeStoreThread()
    }

    /// The open database, opening it first if it is not open (as `CheckInDatabase.open`: created
    /// and migrated if needed; a damaged file is moved aside and `.corrupt` thrown saying where,
    /// after which `open()` starts a fresh store; a newer-schema file throws `.newerSchema`).
    public func open() throws(StoreFailure) -> CheckInDatabase {
        if let database { return database }
        guard !isClosed else {
            // A stopping daemon's last effects must not open the store again behind its back.
            throw StoreFailure(.unavailable, "the check-in store \(path) is closed: the daemon is stopping")
        }
        let opened: CheckInDatabase
        do {
            opened = try CheckInDatabase.openHere(path: path, executor: executor)
        } catch where error.kind == .corrupt {
            // The damaged file is moved aside (never deleted): a fresh store starts at once, and
            // the operator is told where the old one went (`takeReplacementNotice`).
            replacementNotice = error.message
            opened = try CheckInDatabase.openHere(path: path, executor: executor)
        }
        database = opened
        return opened
    }

    /// Opens the store if needed and proves it can write durably right now
    /// (`CheckInDatabase.probe()`): at start-up and when retrying, so that a full disk or a
    /// read-only filesystem is known before anyone presses. Returns the database.
    @discardableResult
    public func probe() async throws(StoreFailure) -> CheckInDatabase {
        let database = try open()
        try await database.probe()
        return database
    }

    /// Recovers the open database after writes threw `.moved` (`CheckInDatabase.recover()`).
    public func recover() async throws(StoreFailure) -> StoreRecovery {
        guard let database else {
            throw StoreFailure(.unavailable, "the store \(path) is not open, so there is nothing to recover; open it")
        }
        return try await database.recover()
    }

    /// Closes the database (on the store thread) for good: a later `open()` is refused.
    public func close() async {
        isClosed = true
        await database?.close()
        database = nil
    }

    /// Set by `close`: nothing opens the store again.
    private var isClosed = false
    /// Where a damaged file found on opening was moved, until someone takes the news.
    private var replacementNotice: String?

    /// Where a damaged file found on opening went (once; nil when nothing was replaced).
    public func takeReplacementNotice() -> String? {
        defer { replacementNotice = nil }
        return replacementNotice
    }

    /// `probe()` from synchronous code, blocking the calling thread until the store thread has
    /// done it: for a daemon that opens its store before its own loop has anything else to do.
    public nonisolated func probeWaiting() -> Result<CheckInDatabase, StoreFailure> {
        executor.performAndWait { () -> Result<CheckInDatabase, StoreFailure> in
            self.assumeIsolated { owner in
                Result { () throws(StoreFailure) -> CheckInDatabase in
                    let database = try owner.open()
                    try database.assumeIsolated { database in
                        Result { () throws(StoreFailure) in try database.probe() }
                    }.get()
                    return database
                }
            }
        }
    }
}
