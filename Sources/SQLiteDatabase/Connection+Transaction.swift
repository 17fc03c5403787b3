import CSQLite

extension Connection {
    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if anything throws.
    ///
    /// IMMEDIATE takes the write lock up front, so a transaction that has started cannot fail
    /// later with SQLITE_BUSY when it first writes. The result is returned only after COMMIT
    /// succeeded, i.e. (with `synchronous=FULL`) after the commit reached stable storage.
    public func transaction<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        // A level an unsynced scope could not restore is restored before anything else is written,
        // or nothing is: no commit may be acknowledged as durable that was not fsynced.
        if !insideUnsyncedCommits, let level = synchronousToRestore {
            try pragma("synchronous", set: level)
            synchronousToRestore = nil
        }
        try execute("BEGIN IMMEDIATE")
        do throws(SQLiteError) {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            rollBackIfStillOpen()
            throw error
        }
    }

    /// Runs `body` with `PRAGMA synchronous=NORMAL`: its commits are written to the WAL but not
    /// fsynced, so a power cut may undo them, never tear them (in WAL mode a commit stays whole and
    /// in order, and the next fsynced commit makes it durable too). Only for writes that may be lost
    /// and redone: marking rows the server has already acknowledged (it de-duplicates a re-send).
    ///
    /// The level in force before is set again when `body` returns or throws; if even that fails,
    /// the next `transaction` sets it before it writes anything, and throws if it cannot.
    public func withUnsyncedCommits<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
        guard !insideUnsyncedCommits else { return try body() }
        var level = "2"  // FULL, should the connection not say
        if let pending = synchronousToRestore {
            level = pending
        } else if let current = try pragma("synchronous") {
            level = current
        }
        synchronousToRestore = level
        insideUnsyncedCommits = true
        defer {
            insideUnsyncedCommits = false
            if (try? pragma("synchronous", set: level)) != nil { synchronousToRestore = nil }
        }
        try pragma("synchronous", set: "NORMAL")
        return try body()
    }

    /// After a failure SQLite may already have rolled back on its own (e.g. on SQLITE_FULL);
    /// ROLLBACK only if the transaction is still open, and keep the original error either way.
    private func rollBackIfStillOpen() {
        guard isInTransaction else { return }
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }
}
