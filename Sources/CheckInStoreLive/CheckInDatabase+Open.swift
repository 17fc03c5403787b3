public import CheckInStoreClient
import CheckInModels
import Glibc
public import LinuxIO
import SQLiteDatabase

/// What opening the files at a path produced, before an actor owns it (created and used on the
/// store thread only).
struct OpenedStore {
    var connection: Connection
    var files: StoreFiles
    /// True when the file had no schema yet (created now, or empty): recovery then lets the old
    /// handle's singleton rows (settings) replace the defaults the fresh file starts with.
    var wasFresh: Bool
}

extension CheckInDatabase {
    /// The name of the store thread (top, gdb); the kernel keeps 15 bytes.
    public static let threadName = "store"

    /// Opens the check-in database at `path`, creating it (and its directory) if needed, and
    /// brings its schema up to date. Everything runs on `executor`'s thread (a new store thread
    /// when nil), which the database then keeps.
    ///
    /// A file SQLite reports as not a database or corrupt is moved aside (never deleted) and
    /// `.corrupt` is thrown saying where it went; opening again then starts a fresh store.
    /// A file from a newer version of the software throws `.newerSchema` and is left as it was.
    /// New files are created with mode 0640 whatever the umask (SQLite gives the -wal and -shm
    /// files the main file's mode); an existing file readable by others is narrowed to 0640.
    public static func open(path: String, on executor: SerialThreadExecutor? = nil) async throws(StoreFailure)
        -> CheckInDatabase {
        let executor = if let executor { executor } else { try makeStoreThread() }
        return try await executor.perform { () throws(StoreFailure) -> CheckInDatabase in
            try openHere(path: path, executor: executor)
        }
    }

    /// A new store thread.
    public static func makeStoreThread() throws(StoreFailure) -> SerialThreadExecutor {
        do {
            return try SerialThreadExecutor(name: threadName)
        } catch {
            throw StoreFailure(.unavailable, "could not start the store's thread: \(error)")
        }
    }

    /// `open(path:on:)` on the current thread, which must be `executor`'s.
    static func openHere(path: String, executor: SerialThreadExecutor) throws(StoreFailure) -> CheckInDatabase {
        precondition(executor.isOnThread, "the store opens only on its own thread")
        let database = CheckInDatabase(opened: try openFiles(path: path), executor: executor)
        database.checkpointWhenIdle()
        return database
    }

    /// Opens the files at `path`: a damaged file is moved aside and `.corrupt` thrown naming where.
    static func openFiles(path: String) throws(StoreFailure) -> OpenedStore {
        do throws(StoreFailure) {
            return try openFilesOnce(path: path)
        } catch where error.kind == .corrupt {
            // `openConnection` has returned, so its connection is closed and the files can move.
            let movedTo = try DatabaseFiles.moveAside(path, now: currentWallTime())
            throw StoreFailure(.corrupt, "database \(path) was damaged and has been moved aside to \(movedTo) "
                + "(with its -wal/-shm files, if any; nothing was deleted). Open the store again to start "
                + "a fresh one; earlier check-ins are in the moved file. Cause: \(error.message)")
        }
    }

    /// Opens the files at `path`; a damaged file is moved aside and a fresh store started at once.
    /// Returns where the damaged file went, if anywhere.
    static func openFilesReplacingDamaged(path: String) throws(StoreFailure) -> (OpenedStore, movedAside: String?) {
        do throws(StoreFailure) {
            return (try openFilesOnce(path: path), nil)
        } catch where error.kind == .corrupt {
            let movedTo = try DatabaseFiles.moveAside(path, now: currentWallTime())
            return (try openFilesOnce(path: path), movedTo)
        }
    }

    private static func openFilesOnce(path: String) throws(StoreFailure) -> OpenedStore {
        try DatabaseFiles.ensureParentDirectory(of: path)
        try DatabaseFiles.checkBeforeOpening(path)
        try DatabaseFiles.createPrivately(path)
        return try openConnection(path: path)
    }

    /// Open, check, configure and migrate; on any failure the connection is closed on return.
    private static func openConnection(path: String) throws(StoreFailure) -> OpenedStore {
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

            action = "bound the page cache"
            try connection.pragma("cache_size", set: String(-pageCacheKiB))

            action = "migrate the schema"
            let migrated = try migrate(connection)
            guard migrated == Schema.latestVersion else { throw unknownSchema(path: path, found: migrated) }

            action = "identify the open files"
            let files = try identifyFiles(connection)
            // Only now that the file has proved to be ours: a refused file is left exactly as it was.
            DatabaseFiles.narrowModes(of: path)
            return OpenedStore(connection: connection, files: files, wasFresh: found == 0)
        } catch let error as SQLiteError {
            throw StoreFailure(error, while: action)
        } catch let failure as StoreFailure {
            throw failure
        } catch {
            throw StoreFailure(.unavailable, "could not \(action) in \(path): \(error)")
        }
    }

    /// WAL with `synchronous=FULL`: every commit is fsynced to the WAL before COMMIT returns, so a
    /// confirmed check-in survives power loss. Both are read back: SQLite ignores what it cannot do.
    /// SQLite's own checkpoints are off (`wal_autocheckpoint=0`): they would run inside a commit;
    /// the store runs them when idle instead (CheckpointPolicy), and SQLite trims the WAL file to
    /// `journal_size_limit` whenever it starts it over.
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
        try connection.pragma("wal_autocheckpoint", set: "0")
        try connection.pragma("journal_size_limit", set: String(CheckpointPolicy.journalSizeLimit))
    }

    /// SQLite's page cache per connection, in KiB. Its default, 2 MiB, would fill over the years
    /// as the history grows and stay resident; the device reads recent rows and its indexes'
    /// upper pages, and a page outside the cache is one read from the kernel's page cache.
    static let pageCacheKiB = 256

    /// The database and WAL files the connection has open, as device and inode. Taken from the
    /// paths just after opening; SQLite's own check (`SQLITE_FCNTL_HAS_MOVED`, inode only) must
    /// agree, so a file swapped in the instant between is caught here rather than trusted.
    private static func identifyFiles(_ connection: Connection) throws -> StoreFiles {
        let path = connection.path
        guard case let .success(database) = FileIdentity.of(path), !(try connection.hasMoved()) else {
            throw StoreFailure(.moved, "database \(path) was moved or replaced while it was being opened; "
                + "open it again")
        }
        switch FileIdentity.of(path + "-wal") {
        case let .success(log):
            let sharedMemory = try? FileIdentity.of(path + "-shm").get()
            return StoreFiles(path: path, database: database, log: log, sharedMemory: sharedMemory)
        case let .failure(error):
            throw StoreFailure(.unavailable, "database \(path) is open in WAL mode but its write-ahead log "
                + "\(path)-wal cannot be examined (\(error))")
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

    static func currentWallTime() -> WallTime {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return WallTime(microsecondsSinceEpoch: Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000)
    }
}
