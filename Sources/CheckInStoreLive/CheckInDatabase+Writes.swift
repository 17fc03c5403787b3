public import CheckInStoreClient
import LinuxIO
import SQLiteDatabase

/// How every write runs (one transaction, checked against the files at the path before and after),
/// the start-up probe, the idle checkpoints and closing.
extension CheckInDatabase {
    /// Runs `body` as one durable write transaction.
    ///
    /// Before the transaction, and again after its COMMIT, the files the connection has open must
    /// still be the ones at `path` (StoreFiles): if not, the write throws `.moved`, and every later
    /// write throws it too until `recover()`. When that is found only after the COMMIT, the rows
    /// are in the old handle alone, so the write is refused all the same (recovery copies them).
    ///
    /// - Parameters:
    ///   - action: what the write does, as a verb phrase for messages ("record check-in …").
    ///   - unsynced: commit without fsync (`Connection.withUnsyncedCommits`): only for marks the
    ///     server's de-duplication makes safe to lose.
    ///   - refusing: a message of the caller's own for particular SQLite errors (a duplicate id).
    func write<Value>(
        _ action: @autoclosure () -> String,
        unsynced: Bool = false,
        refusing: (SQLiteError) -> StoreFailure? = { _ in nil },
        _ body: () throws(SQLiteError) -> Value
    ) throws(StoreFailure) -> Value {
        guard !connection.isClosed else {
            throw StoreFailure(.unavailable, "could not \(action()): the store \(path) has been closed")
        }
        try requireFilesInPlace(before: action)
        let value: Value
        do throws(SQLiteError) {
            if unsynced {
                value = try connection.withUnsyncedCommits { () throws(SQLiteError) -> Value in
                    try connection.transaction(body)
                }
            } else {
                value = try connection.transaction(body)
            }
        } catch {
            if let refusal = refusing(error) { throw refusal }
            let failure = StoreFailure(error, while: action())
            if failure.kind == .full || error.code.primary == .ioError { checkpoints.writeFailed() }
            throw failure
        }
        checkpoints.committed()
        try requireFilesInPlace(afterCommitting: action)
        return value
    }

    private func requireFilesInPlace(before action: () -> String) throws(StoreFailure) {
        if displacement == nil { displacement = files.check() }
        guard let displacement else { return }
        throw StoreFailure(.moved, "could not \(action()): \(displacement.describe(path: path)). Nothing was "
            + "written. The store refuses every write until it is recovered: reopened at \(path), keeping "
            + "every row the open handle still holds")
    }

    private func requireFilesInPlace(afterCommitting action: () -> String) throws(StoreFailure) {
        guard let found = files.check() else { return }
        displacement = found
        throw StoreFailure(.moved, "\(action()): committed, but only to the file the store had open, and "
            + "\(found.describe(path: path)). It is NOT stored at \(path) and must not be taken as saved; "
            + "recovering the store copies it there")
    }

    /// True once a write found the store's files displaced (it threw `.moved`): every write throws
    /// until `recover()` succeeds.
    public var needsRecovery: Bool { displacement != nil }

    // MARK: Start-up probe

    /// Proves that the store can make a write durable at `path` right now: a small write (the
    /// schema version, rewritten unchanged) in its own transaction with the same durability as a
    /// check-in, with the same checks that the files are still in place. Run it at start-up (and
    /// when retrying) so that a full disk or a read-only filesystem is known before anyone presses.
    /// Throws like any write: `.full`, `.readOnly`, `.moved`, …
    public func probe() throws(StoreFailure) {
        // A one-page write can land in room that a refused write left at the WAL's end, and pass
        // while a check-in (a few pages) would still be refused: the fault would clear and the
        // LEDs show "OK" on a full disk. So the probe also asks the file system for room.
        if let free = DatabaseFiles.availableBytes(on: path), free < Self.probeFreeSpace {
            throw StoreFailure(.full, "prove that the store can write durably: disk full: the file system holding \(path) "
                + "has \(free / 1024) KiB free, less than the \(Self.probeFreeSpace / 1024) KiB a few check-ins need")
        }
        let version = String(Schema.latestVersion)
        try write("prove that the store can write durably") { () throws(SQLiteError) in
            // Rewriting the header field dirties page 1, so the commit appends a frame and fsyncs.
            _ = try connection.pragma("user_version", set: version)
        }
    }

    /// Free space below which the probe says the disk is full: room for a few check-ins and the
    /// checkpoint that follows them (a check-in commits about three 4 KiB pages).
    public static let probeFreeSpace: Int64 = 64 * 1024

    // MARK: Idle checkpoints

    /// Checkpoints the write-ahead log if `CheckpointPolicy` says so. Runs on the store thread when
    /// its queue has drained (`SerialThreadExecutor.whenIdle`): after the callers of the writes
    /// have been answered, never inside a write.
    func checkpointIfDue() {
        guard displacement == nil, !connection.isClosed,
              let checkpoint = checkpoints.next(walFileSize: DatabaseFiles.fileSize(path + "-wal")) else { return }
        do throws(SQLiteError) {
            let result = try connection.checkpoint(checkpoint == .truncate ? .truncate : .passive)
            checkpoints.ran(checkpoint, complete: result.isComplete)
            if result.isComplete {
                try startLogOver()
                returnsFreedMemoryWhenIdle = true
            }
            lastCheckpointFailure = nil
        } catch {
            checkpoints.failed()
            lastCheckpointFailure = StoreFailure(error, while: "checkpoint the write-ahead log into the main file")
        }
    }

    /// Starts the WAL over now, with a one-page write (the schema version, rewritten unchanged).
    /// The first commit after a complete checkpoint starts the WAL from its beginning, and with
    /// `synchronous=FULL` SQLite then syncs the new WAL header as well: a second fdatasync that
    /// would otherwise sit in the next check-in's acknowledgement.
    private func startLogOver() throws(SQLiteError) {
        let version = String(Schema.latestVersion)
        try connection.transaction { () throws(SQLiteError) in
            _ = try connection.pragma("user_version", set: version)
        }
    }

    /// Makes the store thread run `checkpointIfDue` whenever it is idle after work, then give back
    /// the memory opening or a checkpoint freed.
    nonisolated func checkpointWhenIdle() {
        executor.whenIdle { [weak self] in
            self?.assumeIsolated { database in
                database.checkpointIfDue()
                database.returnFreedMemoryIfDue()
            }
        }
    }

    /// Opening the store (a new file's schema, its migrations, the first load) and a checkpoint
    /// each peak at about twice what the store keeps; glibc would keep the freed pages in the
    /// store thread's malloc arena for good. Not after every write: a press's next write would
    /// then fault its pages in again inside its acknowledgement.
    func returnFreedMemoryIfDue() {
        guard returnsFreedMemoryWhenIdle else { return }
        returnsFreedMemoryWhenIdle = false
        freedMemoryReturns += 1
        FreedMemory.returnToTheSystem()
    }

    /// Returns once the store thread has run everything queued before, including the idle
    /// checkpoint that follows: for tests that look at the files, and for an orderly stop.
    public nonisolated func waitUntilIdle() async {
        await executor.waitUntilIdle()
    }

    // MARK: Closing

    /// Closes the connection now, on the store thread: SQLite checkpoints the WAL into the main
    /// file and removes the -wal and -shm files. Every later call throws. Idempotent.
    ///
    /// When the files are no longer at the path, SQLite is told to keep them (it deletes them by
    /// name, and those names may belong to another database's files by now).
    public func close() {
        closeConnection()
    }

    /// Closes `connection`, never letting SQLite delete by name files that are not its own, then
    /// deletes the old handle's own companions that recovery renamed out of the way.
    func closeConnection() {
        guard !connection.isClosed else { return }
        cachedInsert = nil
        if displacement != nil || files.check() != nil {
            // If this fails the close may delete the -wal/-shm names; there is no other way to
            // close, and the failure is one of a handle already unusable.
            try? connection.keepWALFileOnClose()
        }
        connection.close()
        for companion in displacedCompanions { DatabaseFiles.removeOwnFile(companion) }
        displacedCompanions = []
    }
}
