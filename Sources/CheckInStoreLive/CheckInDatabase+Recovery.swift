public import CheckInStoreClient
import SQLiteDatabase

/// What `CheckInDatabase.recover()` found at the store's path and what it did about it.
public struct StoreRecovery: Hashable, Sendable, CustomStringConvertible {
    public enum Found: Hashable, Sendable {
        /// The open files were still the ones at the path: nothing to do.
        case inPlace
        /// Nothing at the path: a fresh store was created there.
        case missing
        /// An empty file at the path: it became the fresh store.
        case emptyFile
        /// Another valid store at the path: the open handle's rows were merged into it.
        case otherStore
        /// A damaged file at the path: moved aside (never deleted) and a fresh store created.
        case damaged(movedAsideTo: String)
        /// The database was in place but its write-ahead log was missing or another file: the
        /// open handle's log was checkpointed into the database, which was then reopened. A
        /// foreign log found at the path is moved aside (never deleted, never replayed).
        case logDisplaced(foreignLogMovedTo: String?)
    }

    public var path: String
    public var found: Found
    /// Per table: rows the open handle held that the file at the path lacked, now copied there.
    public var copied: [String: Int] = [:]
    /// Of the copied rows, those whose order number (insertion order, arrival order …) was taken
    /// in the file at the path: they were appended after its own rows instead.
    public var renumbered: [String: Int] = [:]
    /// Per table: rows both had (by primary key); the file at the path kept its own.
    public var alreadyPresent: [String: Int] = [:]
    /// Write-ahead log frames (pages) checkpointed into the main file (`.logDisplaced`).
    public var framesCheckpointed = 0

    public init(path: String, found: Found) {
        self.path = path
        self.found = found
    }

    /// All rows copied, every table.
    public var copiedRowCount: Int { copied.values.reduce(0, +) }

    public var description: String {
        let what: String = switch found {
        case .inPlace: "the store's files were in place at \(path); nothing to recover"
        case .missing: "\(path) was missing; created it afresh"
        case .emptyFile: "\(path) was an empty file; it became the store"
        case .otherStore: "\(path) was another LifeSignal store; merged into it"
        case let .damaged(movedTo): "\(path) was damaged; moved it aside to \(movedTo) and created it afresh"
        case let .logDisplaced(foreign):
            "the write-ahead log of \(path) was " + (foreign.map { "another file (moved aside to \($0))" } ?? "missing")
                + "; checkpointed \(framesCheckpointed) pages the store still had into \(path) and reopened it"
        }
        let tables = copied.keys.sorted().filter { copied[$0, default: 0] > 0 }
            .map { "\($0) \(copied[$0]!)" + (renumbered[$0, default: 0] > 0 ? " (\(renumbered[$0]!) renumbered)" : "") }
        guard case .logDisplaced = found else {
            return what + (tables.isEmpty ? "; no rows needed copying" : "; rows copied from the open handle: "
                + tables.joined(separator: ", "))
        }
        return what
    }
}

extension CheckInDatabase {
    /// Makes the file at `path` the store again after its files were deleted, moved or replaced
    /// while open (writes threw `.moved`), without losing what the open handle still holds.
    ///
    /// - The database itself is missing or another file: the file at the path is opened as `open`
    ///   would (created and migrated if missing or empty; a damaged one moved aside and a fresh one
    ///   created; a newer-schema or foreign file refused). Every row the open handle holds that it
    ///   lacks (by primary key, every table) is copied from the old handle — which still sees the
    ///   unlinked file and its WAL — in one durable transaction; then the old handle is closed.
    /// - Only the write-ahead log is missing or another file: the old handle's log is
    ///   checkpointed into the database (which is still at the path), and the store reopened.
    ///
    /// On failure (`.newerSchema`, `.full`, …) everything stays as it was: the old handle is kept,
    /// writes keep throwing `.moved`, and `recover()` can be called again later. Also safe when
    /// nothing moved (returns `.inPlace`).
    public func recover() throws(StoreFailure) -> StoreRecovery {
        if connection.isClosed {
            // Either closed on purpose, or an earlier recovery of a lost log moved every row into
            // the database at the path and closed the old handle, but could not reopen.
            guard case .log = displacement else {
                throw StoreFailure(.unavailable, "the store \(path) has been closed; open it again")
            }
            adopt(try Self.openFiles(path: path))
            return StoreRecovery(path: path, found: .logDisplaced(foreignLogMovedTo: nil))
        }
        // Looked at afresh: files moved back in the meantime are simply in place again.
        guard let displaced = files.check() else {
            displacement = nil
            return StoreRecovery(path: path, found: .inPlace)
        }
        displacement = displaced
        switch displaced {
        case .log(let problem): return try recoverLog(problem)
        case .database: return try recoverDatabase()
        }
    }

    // MARK: The log only

    private func recoverLog(_ problem: StoreDisplacement.Problem) throws(StoreFailure) -> StoreRecovery {
        var report = StoreRecovery(path: path, found: .logDisplaced(foreignLogMovedTo: nil))
        if case .replaced = problem {
            // Not the handle's own log: it must not be replayed into this database.
            let movedTo = try DatabaseFiles.moveOutOfTheWay(path + "-wal", of: path, suffix: "-wal", reason: "foreign",
                                                            now: Self.currentWallTime())
            report.found = .logDisplaced(foreignLogMovedTo: movedTo)
        }
        do throws(SQLiteError) {
            // PASSIVE copies and counts the frames; TRUNCATE then proves that nothing is left
            // (it fails with SQLITE_BUSY rather than stop short) and reports zeros.
            report.framesCheckpointed = try connection.checkpoint(.passive).framesCheckpointed
            _ = try connection.checkpoint(.truncate)
        } catch {
            throw StoreFailure(error, while: "move the write-ahead log the store still has open into the database")
        }
        // Every row is in the database at the path now. The same file must not be opened twice in
        // one process (SQLite would share the old handle's index of its lost log), so close first.
        closeConnection()
        adopt(try Self.openFiles(path: path))
        return report
    }

    // MARK: The database

    private func recoverDatabase() throws(StoreFailure) -> StoreRecovery {
        // From here on SQLite must never delete -wal/-shm files by name when the old handle closes.
        try? connection.keepWALFileOnClose()
        try moveOwnCompanionsAside()
        let (opened, found) = try openForRecovery()
        var report = StoreRecovery(path: path, found: found)
        do throws(SQLiteError) {
            let copy = try RowCopy.copy(from: connection, into: opened.connection, replacingSingletons: opened.wasFresh)
            report.copied = copy.copied
            report.renumbered = copy.renumbered
            report.alreadyPresent = copy.alreadyPresent
        } catch {
            opened.connection.close()
            throw StoreFailure(error, while: "copy the rows the store still holds into the database at \(path)")
        }
        // The copy committed with fsync; make the new file's directory entry durable too, and move
        // the copy into the main file (a failure here only leaves it in the WAL, durable as well).
        DatabaseFiles.syncDirectory(directory(of: path))
        _ = try? opened.connection.checkpoint(.truncate)
        if let again = opened.files.check() {
            opened.connection.close()
            throw StoreFailure(.moved, "the store was being recovered into \(path), but "
                + "\(again.describe(path: path)) meanwhile; recover again")
        }
        closeConnection()
        adopt(opened)
        return report
    }

    /// The old handle's own -wal and -shm, if still at the path, would be taken for the new
    /// file's (SQLite would replay the old log into it, or truncate the shared memory under the
    /// old handle): rename them; they are deleted once the old handle is closed.
    private func moveOwnCompanionsAside() throws(StoreFailure) {
        for (suffix, identity) in [("-wal", files.log), ("-shm", files.sharedMemory)] {
            guard let identity, case let .success(found) = FileIdentity.of(path + suffix), found == identity else { continue }
            displacedCompanions.append(try DatabaseFiles.moveOutOfTheWay(path + suffix, of: path, suffix: suffix,
                                                                reason: "displaced", now: Self.currentWallTime()))
        }
    }

    /// Opens whatever is at the path now, moving a damaged file aside and starting a fresh one.
    private func openForRecovery() throws(StoreFailure) -> (OpenedStore, StoreRecovery.Found) {
        let existed = DatabaseFiles.exists(path)
        let (opened, movedAside) = try Self.openFilesReplacingDamaged(path: path)
        if let movedAside { return (opened, .damaged(movedAsideTo: movedAside)) }
        return (opened, !existed ? .missing : opened.wasFresh ? .emptyFile : .otherStore)
    }

    /// Makes `opened` the store's connection.
    private func adopt(_ opened: OpenedStore) {
        connection = opened.connection
        files = opened.files
        displacement = nil
        checkpoints = CheckpointPolicy()
        lastCheckpointFailure = nil
        cachedInsert = nil
    }
}
