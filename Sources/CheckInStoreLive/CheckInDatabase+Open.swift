public import CheckInStoreClient
import CheckInModels
import Glibc
import SQLiteDatabase

extension CheckInDatabase {
    /// Opens the check-in database at `path`, creating it (and its directory) if needed, and
    /// brings its schema up to date.
    ///
    /// A file SQLite reports as not a database or corrupt is moved aside (never deleted) and
    /// `.corrupt` is thrown saying where it went; opening again then starts a fresh store.
    /// A file from a newer version of the software throws `.newerSchema` and is left as it was.
    public static func open(path: String) throws(StoreFailure) -> CheckInDatabase {
        try DatabaseFiles.ensureParentDirectory(of: path)
        let connection: Connection
        do throws(StoreFailure) {
            try DatabaseFiles.checkBeforeOpening(path)
            connection = try openConnection(path: path)
        } catch where error.kind == .corrupt {
            // `openConnection` has returned, so its connection is closed and the files can move.
            let movedTo = try DatabaseFiles.moveAside(path, now: currentWallTime())
            throw StoreFailure(.corrupt, "database \(path) was damaged and has been moved aside to \(movedTo) "
                + "(with its -wal/-shm files, if any; nothing was deleted). Open the store again to start "
                + "a fresh one; earlier check-ins are in the moved file. Cause: \(error.message)")
        }
        return CheckInDatabase(connection: connection)
    }

    /// Open, check, configure and migrate; on any failure the connection is closed on return.
    private static func openConnection(path: String) throws(StoreFailure) -> Connection {
        var action = "open the database"
        // Both SQLite errors and the store's own checks throw in here, so this `do` is untyped.
        do {
            let connection = try Connection(path: path, busyTimeout: .seconds(5))
            // SQLite silently falls back to read-only when the OS refuses write access.
            guard !connection.isReadOnly else {
                throw StoreFailure(.readOnly, "cannot write \(path): the file or its filesystem is read-only "
                    + "(SQLite could open it for reading only); make it writable, then restart")
            }

            action = "read the schema version"
            // Checked before anything writes: the journal-mode switch below rewrites the file header.
            let found = try schemaVersion(connection)
            guard (0...Schema.latestVersion).contains(found) else { throw unknownSchema(path: path, found: found) }

            action = "configure durable writes"
            try requireDurableWrites(connection)

            action = "migrate the schema"
            let migrated = try migrate(connection)
            guard migrated == Schema.latestVersion else { throw unknownSchema(path: path, found: migrated) }
            return connection
        } catch let error as SQLiteError {
            throw StoreFailure(error, while: action)
        } catch let failure as StoreFailure {
            throw failure
        } catch {
            throw StoreFailure(.other, "could not \(action) in \(path): \(error)")
        }
    }

    /// WAL with `synchronous=FULL`: every commit is fsynced to the WAL before COMMIT returns, so a
    /// confirmed check-in survives power loss. Both are read back: SQLite ignores what it cannot do.
    private static func requireDurableWrites(_ connection: Connection) throws {
        let journal = try connection.pragma("journal_mode", set: "WAL")?.lowercased()
        guard journal == "wal" else {
            throw StoreFailure(.unavailable, "database \(connection.path) could not be switched to WAL "
                + "(journal_mode is \(journal ?? "unknown")); is the filesystem one without shared memory "
                + "support? Put the database on a local filesystem")
        }
        try connection.pragma("synchronous", set: "FULL")
        let synchronous = try connection.pragma("synchronous")
        guard synchronous == "2" else {
            throw StoreFailure(.unavailable, "database \(connection.path) did not accept synchronous=FULL "
                + "(reads back \(synchronous ?? "nothing")); refusing to run without durable commits")
        }
    }

    /// Applies the migrations the file lacks, in one transaction; returns the version found inside it
    /// when that is newer than this code (another process may have upgraded it meanwhile).
    private static func migrate(_ connection: Connection) throws(SQLiteError) -> Int64 {
        try connection.transaction { () throws(SQLiteError) -> Int64 in
            let current = try schemaVersion(connection)
            guard (0..<Schema.latestVersion).contains(current) else { return current }
            for migration in Schema.migrations[Int(current)...] {
                for sql in migration {
                    try connection.execute(sql)
                }
            }
            // user_version lives in the file header and is part of this transaction.
            try connection.pragma("user_version", set: String(Schema.latestVersion))
            return Schema.latestVersion
        }
    }

    static func schemaVersion(_ connection: Connection) throws(SQLiteError) -> Int64 {
        Int64(try connection.pragma("user_version") ?? "0") ?? 0
    }

    /// A version above ours is a newer release's file; a negative one was never written by any
    /// release (another program's database?). Either way the file is left as it is.
    private static func unknownSchema(path: String, found: Int64) -> StoreFailure {
        guard found >= 0 else {
            return StoreFailure(.unavailable, "database \(path) has schema version \(found), which no release of "
                + "this software writes: it is probably another program's file. Point the configuration at "
                + "another path or move the file away; it was left untouched")
        }
        return StoreFailure(.newerSchema, "database \(path) has schema version \(found), but this software knows "
            + "versions up to \(Schema.latestVersion): it was written by a newer release. Install that "
            + "release again (or move the file aside to start fresh); the file was left untouched")
    }

    private static func currentWallTime() -> WallTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return WallTime(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }
}
