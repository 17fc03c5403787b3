import CSQLite

extension Connection {
    /// How `checkpoint(_:)` moves the write-ahead log into the main file.
    public enum CheckpointMode: Sendable {
        /// Copies what it can without waiting for anyone; the WAL file keeps its size and is
        /// rewritten from its start by the next commit.
        case passive
        /// Copies everything, then truncates the WAL file to zero bytes (frees its disk space).
        /// Fails with SQLITE_BUSY instead of waiting when another connection is reading; on
        /// success both counts of the result are 0 (the log is empty).
        case truncate
    }

    /// What a checkpoint did, in WAL frames (one page each).
    public struct CheckpointResult: Hashable, Sendable {
        /// Frames in the WAL when the checkpoint ran.
        public var framesInLog: Int
        /// Of those, how many are now in the main file.
        public var framesCheckpointed: Int
        /// True when the main file holds every committed transaction.
        public var isComplete: Bool { framesCheckpointed >= framesInLog }
    }

    /// Runs a checkpoint of the main database now. Never waits for another connection's lock
    /// (busy handler off for the call): a checkpoint that cannot run now is simply run later.
    public func checkpoint(_ mode: CheckpointMode) throws(SQLiteError) -> CheckpointResult {
        try requireOpen("checkpoint")
        var log: Int32 = 0
        var checkpointed: Int32 = 0
        sqlite3_busy_timeout(handle, 0)
        let result = sqlite3_wal_checkpoint_v2(
            handle, "main", mode == .passive ? SQLITE_CHECKPOINT_PASSIVE : SQLITE_CHECKPOINT_TRUNCATE,
            &log, &checkpointed)
        let error = result == SQLITE_OK ? nil : self.error("checkpoint (\(mode))", result: result)
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        if let error { throw error }
        // -1 in both when the database is not in WAL mode: nothing to move.
        return CheckpointResult(framesInLog: Int(max(log, 0)), framesCheckpointed: Int(max(checkpointed, 0)))
    }

    /// Makes SQLite keep the WAL file (truncated, not deleted) when this connection closes, and
    /// leave the `-shm` file in place. SQLite deletes both *by name* on closing the last
    /// connection; once the database has been moved or replaced those names may belong to
    /// another database's files.
    public func keepWALFileOnClose() throws(SQLiteError) {
        try requireOpen("keep the WAL on close")
        var persist: Int32 = 1
        try check(sqlite3_file_control(handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist),
                  "set SQLITE_FCNTL_PERSIST_WAL")
    }

    /// SQLite's own view (`SQLITE_FCNTL_HAS_MOVED`): true when the file this connection has open
    /// is no longer the one at `path` (unlinked, renamed, or replaced by another inode).
    public func hasMoved() throws(SQLiteError) -> Bool {
        try requireOpen("check whether the file has moved")
        var moved: Int32 = 0
        try check(sqlite3_file_control(handle, "main", SQLITE_FCNTL_HAS_MOVED, &moved),
                  "file control SQLITE_FCNTL_HAS_MOVED")
        return moved != 0
    }
}
