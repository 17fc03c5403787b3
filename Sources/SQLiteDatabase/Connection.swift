import CSQLite

/// One open SQLite database file, the sole owner of its `sqlite3*` handle (closed in `deinit`).
///
/// Opened with `SQLITE_OPEN_NOMUTEX`, so SQLite does no locking of its own for this handle: a
/// connection must be used by one owner at a time. That is why it is deliberately not `Sendable`;
/// put it inside an actor (or another single owner) to share it.
public final class Connection {
    public enum OpenMode: Sendable {
        /// Read and write, creating the file if it is missing (the normal mode).
        case readWriteCreate
        /// Read only: writes fail with `SQLITE_READONLY` (for tools and tests).
        case readOnly
    }

    /// The file's path as given to `init`; named in every error.
    public let path: String
    let handle: OpaquePointer
    /// The `synchronous` level to set again before the next transaction, when leaving a
    /// `withUnsyncedCommits` scope could not restore it at once (see Connection+Transaction.swift).
    var synchronousToRestore: String?
    /// True inside `withUnsyncedCommits`, whose own transactions must not restore the level.
    var insideUnsyncedCommits = false
    /// As given to `init`; set again after a checkpoint, which runs with the busy handler off.
    let busyTimeoutMilliseconds: Int32
    /// True once `close()` ran: the handle is gone and every call throws.
    public private(set) var isClosed = false

    /// Opens (or creates) the database at `path`.
    ///
    /// Extended result codes are turned on, and `busyTimeout` makes SQLite retry for that long when
    /// another connection holds a lock instead of failing at once with `SQLITE_BUSY`.
    public init(path: String, mode: OpenMode = .readWriteCreate, busyTimeout: Duration = .seconds(5)) throws(SQLiteError) {
        let access = mode == .readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var opened: OpaquePointer?
        let result = sqlite3_open_v2(path, &opened, access | SQLITE_OPEN_NOMUTEX, nil)
        guard let opened else {
            // Only when SQLite could not even allocate the handle.
            throw SQLiteError(operation: "open", path: path, code: SQLiteResultCode(rawValue: result),
                              message: "could not allocate a connection")
        }
        guard result == SQLITE_OK else {
            // A handle is returned even on failure; read its message, then free it.
            let error = SQLiteError(operation: "open", path: path,
                                    code: SQLiteResultCode(rawValue: sqlite3_extended_errcode(opened)),
                                    message: String(cString: sqlite3_errmsg(opened)),
                                    systemErrno: sqlite3_system_errno(opened))
            sqlite3_close_v2(opened)
            throw error
        }
        self.path = path
        self.handle = opened
        let milliseconds = busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        busyTimeoutMilliseconds = Int32(clamping: milliseconds)
        sqlite3_extended_result_codes(handle, 1)
        try check(sqlite3_busy_timeout(handle, busyTimeoutMilliseconds), "set busy timeout")
    }

    deinit {
        // Statements keep their connection alive, so none is left to block the close here.
        if !isClosed { sqlite3_close_v2(handle) }
    }

    /// Closes the handle now, on the caller's thread, rather than whenever the last reference
    /// goes. Statements still held elsewhere keep SQLite's side alive until they are released;
    /// every later call on this connection throws. Idempotent.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        sqlite3_close_v2(handle)
    }

    /// Throws instead of touching a closed handle.
    func requireOpen(_ operation: @autoclosure () -> String) throws(SQLiteError) {
        guard isClosed else { return }
        throw SQLiteError(operation: operation(), path: path, code: .misuse, message: "the connection is closed")
    }

    /// Runs one or more SQL statements that return no rows you need (DDL, BEGIN/COMMIT, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        try requireOpen("execute \(sql)")
        let result = sqlite3_exec(handle, sql, nil, nil, nil)
        try check(result, "execute \(sql)")
    }

    /// Compiles a single SQL statement.
    public func prepare(_ sql: String) throws(SQLiteError) -> Statement {
        try requireOpen("prepare \(sql)")
        return try Statement(connection: self, sql: sql)
    }

    /// True when writes are impossible: opened read-only, or SQLite fell back to read-only because
    /// the OS refused write access (read-only filesystem, immutable file).
    public var isReadOnly: Bool { isClosed || sqlite3_db_readonly(handle, "main") == 1 }

    /// True between BEGIN and COMMIT/ROLLBACK.
    public var isInTransaction: Bool { !isClosed && sqlite3_get_autocommit(handle) == 0 }

    /// Rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { isClosed ? 0 : Int(sqlite3_changes64(handle)) }

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { isClosed ? 0 : sqlite3_last_insert_rowid(handle) }

    /// Throws the connection's current error unless `result` is `SQLITE_OK`.
    func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(SQLiteError) {
        guard result != SQLITE_OK else { return }
        throw error(operation(), result: result)
    }

    /// The connection's current error, described as a failure of `operation`.
    func error(_ operation: String, result: Int32) -> SQLiteError {
        // With extended codes on, `result` is already extended; errcode also covers sqlite3_exec.
        let extended = sqlite3_extended_errcode(handle)
        let code = (extended & 0xFF) == (result & 0xFF) ? extended : result
        return SQLiteError(operation: operation, path: path, code: SQLiteResultCode(rawValue: code),
                           message: String(cString: sqlite3_errmsg(handle)),
                           systemErrno: sqlite3_system_errno(handle))
    }
}

@available(*, unavailable, message: "A Connection has a single owner; keep it inside an actor")
extension Connection: Sendable {}
