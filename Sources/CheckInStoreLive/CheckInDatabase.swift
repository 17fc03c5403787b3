public import CheckInModels
public import CheckInStoreClient
import LinuxIO
import SQLiteDatabase

/// The device's check-in database: the single owner of the SQLite connection.
///
/// An actor whose executor is a thread of its own (`SerialThreadExecutor`): every SQLite call —
/// open, reads, writes, checkpoints, close — runs there, never on the caller's thread, so a commit
/// and its fsync never hold up the daemon's loop (LED timing, the control socket). A call from the
/// loop is one hop to the store thread and one hop back.
///
/// Every write is its own `BEGIN IMMEDIATE` transaction and returns only after COMMIT, which with
/// WAL + `synchronous=FULL` means after fsync (marking rows uploaded alone skips the fsync, see
/// `markRowsUploaded`). Before and after every write the store checks that the files it has open
/// are still the ones at `path`; if not, the write throws `.moved` (and so does every later one)
/// until `recover()` (CheckInDatabase+Recovery.swift). The write-ahead log is checkpointed into
/// the main file when the store thread is idle after writes, never inside a write
/// (`CheckpointPolicy`). Idle, the thread sleeps: no timers.
public actor CheckInDatabase {
    /// The database file, as given to `open(path:)`.
    public nonisolated let path: String
    /// The store thread every method runs on.
    nonisolated let executor: SerialThreadExecutor
    /// Internal, not private: the extensions (other files) share the connection. Replaced by
    /// `recover()`.
    var connection: Connection
    /// The files `connection` has open, checked around every write.
    var files: StoreFiles
    /// Set once a write found the files displaced; every write throws until `recover()`.
    var displacement: StoreDisplacement?
    /// The old handle's own -wal/-shm files, renamed out of the way of the file recovery opened at
    /// the path; deleted once the old handle is closed.
    var displacedCompanions: [String] = []
    /// When to checkpoint (pure; CheckpointPolicy.swift).
    var checkpoints = CheckpointPolicy()
    /// The last idle checkpoint's failure, nil once one succeeds: for status and logs.
    public internal(set) var lastCheckpointFailure: StoreFailure?
    /// Compiled once: parsing the INSERT was a large share of a check-in's CPU time.
    var cachedInsert: Statement?
    /// Give the pages malloc holds free back at the next idle moment: set when the store opens and
    /// after each complete checkpoint, the store's two peaks (CheckInDatabase+Writes.swift).
    var returnsFreedMemoryWhenIdle = true
    /// How many times the store gave freed memory back (for tests).
    var freedMemoryReturns = 0

    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    init(opened: OpenedStore, executor: SerialThreadExecutor) {
        self.path = opened.connection.path
        self.executor = executor
        self.connection = opened.connection
        self.files = opened.files
    }

    /// The connection closes on the store thread, whoever drops the last reference.
    isolated deinit {
        closeConnection()
    }

    // MARK: Check-ins

    /// Durably stores a new, pending check-in and returns it as stored (times to the microsecond).
    /// An id that is already stored is refused, never overwritten.
    public func record(_ new: NewCheckIn) throws(StoreFailure) -> CheckInRecord {
        try record(new, answering: [])
    }

    /// Durably stores a new check-in together with the user's answers to pings (the press that
    /// answers them), all in ONE transaction: either the check-in and every response are stored and
    /// the pings are no longer pending, or nothing is.
    public func record(_ new: NewCheckIn, answering responses: [PingResponse]) throws(StoreFailure) -> CheckInRecord {
        let stored = CheckInRecord(NewCheckIn(id: new.id, at: new.at.truncatedToMicroseconds, source: new.source))
        try write("record check-in \(new.id)", refusing: { error in
            guard error.code == .constraintPrimaryKey else { return nil }
            return StoreFailure(.other, "check-in \(new.id) is already stored in \(path); "
                + "it was not overwritten (a new check-in needs a new id)")
        }) { () throws(SQLiteError) in
            try insert(stored)
            try insertResponses(responses)
        }
        return stored
    }

    /// Stores many pending check-ins in one transaction (one fsync for all): for importing a
    /// backlog, e.g. the benchmark's 100,000-row upload queue. All or none are stored.
    @discardableResult
    public func record(all batch: [NewCheckIn]) throws(StoreFailure) -> [CheckInRecord] {
        let stored = batch.map { CheckInRecord(NewCheckIn(id: $0.id, at: $0.at.truncatedToMicroseconds, source: $0.source)) }
        try write("record \(batch.count) check-ins") { () throws(SQLiteError) in
            for record in stored { try insert(record) }
        }
        return stored
    }

    /// The most recent check-ins, newest first (by order of recording, not by clock).
    public func history(limit: Int) throws(StoreFailure) -> [CheckInRecord] {
        guard limit > 0 else { return [] }
        return try fetchRecords(
            "SELECT \(CheckInRow.columns) FROM check_ins ORDER BY insertion_order DESC LIMIT ?1",
            limit: limit, while: "read the check-in history")
    }

    /// Check-ins not yet uploaded, oldest first: the uploader's queue.
    public func pendingCheckIns(limit: Int) throws(StoreFailure) -> [CheckInRecord] {
        guard limit > 0 else { return [] }
        return try fetchRecords(
            """
            SELECT \(CheckInRow.columns) FROM check_ins WHERE uploaded_at_us IS NULL AND upload_rejection IS NULL
            ORDER BY insertion_order ASC LIMIT ?1
            """,
            limit: limit, while: "read the pending check-ins")
    }

    /// Marks check-ins as acknowledged by the backend at `time`, in one transaction.
    /// Unknown ids and ids already marked are left alone; returns how many were newly marked.
    @discardableResult
    public func markUploaded(ids: [CheckInID], at time: WallTime) throws(StoreFailure) -> Int {
        try markRowsUploaded(in: "check_ins", ids: ids, at: time, noun: "check-ins")
    }

    /// Re-anchors the wall time of check-ins stamped on `now`'s boot before the wall clock was
    /// synchronised: wall = now.wall − (now.uptime − uptime), i.e. measured back from a trusted wall
    /// reading on the monotonic clock. They then count as synchronised. Call only with a synchronised
    /// `now`; returns how many rows changed (in one transaction).
    @discardableResult
    public func reanchorWallTimes(now: DeviceInstant) throws(StoreFailure) -> Int {
        guard now.wallClockSynchronized else { return 0 }
        return try write("re-anchor the wall time of unsynchronised check-ins") { () throws(SQLiteError) -> Int in
            let update = try connection.prepare("""
                UPDATE check_ins SET wall_time_us = ?1 - (?2 - uptime_us), wall_clock_synchronized = 1
                WHERE boot_id = ?3 AND wall_clock_synchronized = 0 AND uptime_us <= ?2
                """)
            try update.bind(.integer(now.wall.microsecondsSinceEpoch), .integer(now.uptime.wholeMicroseconds),
                            .text(now.bootID))
            try update.step()
            return connection.changes
        }
    }

    public func pendingUploadCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM check_ins WHERE uploaded_at_us IS NULL AND upload_rejection IS NULL",
                      while: "count pending uploads")
    }

    /// All stored check-ins.
    public func count() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM check_ins", while: "count check-ins")
    }

    // MARK: Settings

    /// The stored settings, or nil if none were ever saved.
    public func loadSettings() throws(StoreFailure) -> StoredSettings? {
        // With the latest away period: a restart knows at once whether the device is away.
        guard var stored = try loadSettingsRow() else { return nil }
        stored.latestAway = try awayPeriods(limit: 1).first
        return stored
    }

    private func loadSettingsRow() throws(StoreFailure) -> StoredSettings? {
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT interval_us, reminder_us, version, applied_config_interval_us, applied_config_reminder_us,
                       away_since_us, away_until_us
                FROM settings WHERE singleton = 1
                """)
            guard try select.step() else { return nil }
            let settings = CheckInSettings(interval: .microseconds(try select.int64(at: 0)),
                                           reminder: .microseconds(try select.int64(at: 1)))
            var applied: CheckInSettings?
            if let interval = try select.optionalInt64(at: 3), let reminder = try select.optionalInt64(at: 4) {
                applied = CheckInSettings(interval: .microseconds(interval), reminder: .microseconds(reminder))
            }
            var away: AwayPlan?
            if let since = try select.optionalInt64(at: 5), let until = try select.optionalInt64(at: 6) {
                away = AwayPlan(since: WallTime(microsecondsSinceEpoch: since), until: WallTime(microsecondsSinceEpoch: until))
            }
            let version = try select.int64(at: 2)
            select.reset()
            return StoredSettings(settings: settings, version: version, appliedFromConfig: applied, away: away)
        } catch {
            throw StoreFailure(error, while: "load the settings")
        }
    }

    /// Replaces the stored settings (durations kept to the microsecond).
    public func saveSettings(_ stored: StoredSettings) throws(StoreFailure) {
        try write("save the settings") { () throws(SQLiteError) in try upsertSettings(stored) }
    }

    /// The settings row; the caller holds the transaction.
    func upsertSettings(_ stored: StoredSettings) throws(SQLiteError) {
        let upsert = try connection.prepare("""
            INSERT INTO settings (singleton, interval_us, reminder_us, version,
                                  applied_config_interval_us, applied_config_reminder_us, away_since_us, away_until_us)
            VALUES (1, ?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT (singleton) DO UPDATE SET
                interval_us = excluded.interval_us, reminder_us = excluded.reminder_us,
                version = excluded.version,
                applied_config_interval_us = excluded.applied_config_interval_us,
                applied_config_reminder_us = excluded.applied_config_reminder_us,
                away_since_us = excluded.away_since_us, away_until_us = excluded.away_until_us
            """)
        try upsert.bind(
            .integer(stored.settings.interval.wholeMicroseconds),
            .integer(stored.settings.reminder.wholeMicroseconds),
            .integer(stored.version),
            .integer(orNull: stored.appliedFromConfig?.interval.wholeMicroseconds),
            .integer(orNull: stored.appliedFromConfig?.reminder.wholeMicroseconds),
            .integer(orNull: stored.away?.since.microsecondsSinceEpoch),
            .integer(orNull: stored.away?.until.microsecondsSinceEpoch))
        try upsert.step()
    }

    // MARK: Diagnostics

    /// `PRAGMA integrity_check`: `["ok"]` for a sound file, otherwise SQLite's list of problems.
    public func integrityCheck() throws(StoreFailure) -> [String] {
        do throws(SQLiteError) {
            return try connection.pragmaRows("integrity_check")
        } catch {
            throw StoreFailure(error, while: "check the database's integrity")
        }
    }

    /// A pragma as the live connection sees it (e.g. `journal_mode`, `synchronous`, `user_version`).
    public func pragma(_ name: String) throws(StoreFailure) -> String? {
        do throws(SQLiteError) {
            return try connection.pragma(name)
        } catch {
            throw StoreFailure(error, while: "read PRAGMA \(name)")
        }
    }

    // MARK: Helpers

    /// Sets `uploaded_at_us` on the rows of `table` with these ids that have none, in one transaction.
    ///
    /// Not fsynced (`withUnsyncedCommits`): a mark a power cut undoes only re-sends rows the server
    /// already has and de-duplicates by id, and the next check-in's fsync (or SQLite's next
    /// checkpoint) makes it durable anyway. That saves one fsync per uploaded batch (a 100,000-row
    /// backlog: 200; BENCHMARKS.md).
    /// Check-ins, alerts and everything else are still committed with `synchronous=FULL`.
    func markRowsUploaded(in table: String, ids: [CheckInID], at time: WallTime, noun: String,
                          column: String = "uploaded_at_us") throws(StoreFailure) -> Int {
        try write("mark \(ids.count) \(noun) as uploaded", unsynced: true) { () throws(SQLiteError) -> Int in
            let update = try connection.prepare(
                "UPDATE \(table) SET \(column) = ?1 WHERE id = ?2 AND \(column) IS NULL")
            var marked = 0
            for id in ids {
                try update.bind(.integer(time.microsecondsSinceEpoch), .text(id.description))
                try update.step()
                marked += connection.changes
            }
            return marked
        }
    }

    /// Inserts one pending row; the caller holds the transaction.
    private func insert(_ stored: CheckInRecord) throws(SQLiteError) {
        try Self.bindQueued(try insertStatement(), id: stored.id, at: stored.at, source: stored.source.rawValue)
    }

    private func insertStatement() throws(SQLiteError) -> Statement {
        if let cachedInsert { return cachedInsert }
        let insert = try connection.prepare(Self.insertSQL(into: "check_ins"))
        cachedInsert = insert
        return insert
    }

    func fetchRecords(_ sql: String, limit: Int, while action: String) throws(StoreFailure) -> [CheckInRecord] {
        var records: [CheckInRecord] = []
        do throws(SQLiteError) {
            let select = try connection.prepare(sql)
            try select.bind(.integer(Int64(clamping: limit)))
            while try select.step() {
                records.append(try CheckInRow.record(from: select))
            }
        } catch {
            throw StoreFailure(error, while: action)
        }
        return records
    }

    func countRows(_ sql: String, while action: String) throws(StoreFailure) -> Int {
        do throws(SQLiteError) {
            let select = try connection.prepare(sql)
            try select.step()
            return Int(try select.int64(at: 0))
        } catch {
            throw StoreFailure(error, while: action)
        }
    }
}

extension DeviceInstant {
    /// What the store keeps: both clocks as whole microseconds.
    var truncatedToMicroseconds: DeviceInstant {
        DeviceInstant(wall: wall, uptime: .microseconds(uptime.wholeMicroseconds), bootID: bootID,
                      wallClockSynchronized: wallClockSynchronized)
    }
}
