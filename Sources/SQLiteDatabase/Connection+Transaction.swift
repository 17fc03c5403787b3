import CSQLite

extension Connection {
    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if anything throws.
    ///
    /// IMMEDIATE takes the write lock up front, so a transaction that has started cannot fail
    /// later with SQLITE_BUSY when it first writes. The result is returned only after COMMIT
    /// succeeded, i.e. (with `synchronous=FULL`) after the commit reached stable storage.
    public func transaction<Result>(_ body: () throws(SQLiteError) -> Result) throws(SQLiteError) -> Result {
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

    /// After a failure SQLite may already have rolled back on its own (e.g. on SQLITE_FULL);
    /// ROLLBACK only if the transaction is still open, and keep the original error either way.
    private func rollBackIfStillOpen() {
        guard isInTransaction else { return }
        sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
    }
}
