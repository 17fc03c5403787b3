public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Help alerts: stored durably like check-ins, in their own table, and queued for upload.
extension CheckInDatabase {
    /// Durably stores a new alert as pending and returns it as stored (times to the microsecond).
    /// An id that is already stored is refused, never overwritten.
    public func recordAlert(_ new: AlertRecord) throws(StoreFailure) -> AlertRecord {
        let stored = AlertRecord(id: new.id, at: new.at.truncatedToMicroseconds, source: new.source)
        try write("record help alert \(new.id)", refusing: { error in
            guard error.code == .constraintPrimaryKey else { return nil }
            return StoreFailure(.other, "alert \(new.id) is already stored in \(path); it was not overwritten")
        }) { () throws(SQLiteError) in
            let insert = try connection.prepare(Self.insertSQL(into: "alerts"))
            try Self.bindQueued(insert, id: stored.id, at: stored.at, source: stored.source.rawValue)
        }
        return stored
    }

    /// The INSERT of a new pending row into `check_ins` or `alerts` (same columns); the next
    /// insertion order is computed inside it, so it never depends on clocks.
    static func insertSQL(into table: String) -> String {
        """
        INSERT INTO \(table) (id, insertion_order, wall_time_us, uptime_us, boot_id, wall_clock_synchronized, source)
        VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 FROM \(table)), ?2, ?3, ?4, ?5, ?6)
        """
    }

    /// Binds a queued row's values to an `insertSQL` statement and runs it.
    static func bindQueued(_ insert: Statement, id: CheckInID, at: DeviceInstant, source: String) throws(SQLiteError) {
        defer { insert.reset() }
        try insert.bind(
            .text(id.description),
            .integer(at.wall.microsecondsSinceEpoch),
            .integer(at.uptime.wholeMicroseconds),
            .text(at.bootID),
            .bool(at.wallClockSynchronized),
            .text(source))
        try insert.step()
    }

    /// Alerts not yet acknowledged by the backend, oldest first: the alert uploader's queue.
    public func pendingAlerts(limit: Int) throws(StoreFailure) -> [AlertRecord] {
        guard limit > 0 else { return [] }
        var alerts: [AlertRecord] = []
        do throws(SQLiteError) {
            let select = try connection.prepare("""
                SELECT \(AlertRow.columns) FROM alerts WHERE uploaded_at_us IS NULL
                ORDER BY insertion_order ASC LIMIT ?1
                """)
            try select.bind(.integer(Int64(clamping: limit)))
            while try select.step() {
                alerts.append(try AlertRow.record(from: select))
            }
        } catch {
            throw StoreFailure(error, while: "read the pending alerts")
        }
        return alerts
    }

    /// Marks alerts as acknowledged by the backend; returns how many were newly marked.
    @discardableResult
    public func markAlertsUploaded(ids: [AlertID], at time: WallTime) throws(StoreFailure) -> Int {
        try markRowsUploaded(in: "alerts", ids: ids, at: time, noun: "alerts")
    }

    public func pendingAlertCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM alerts WHERE uploaded_at_us IS NULL", while: "count pending alerts")
    }

    /// The alert store interface the feature uses, backed by this database.
    public nonisolated var alertClient: AlertStoreClient {
        AlertStoreClient(
            record: { new async throws(StoreFailure) in try await self.recordAlert(new) },
            pending: { () async throws(StoreFailure) in try await self.pendingAlerts(limit: 100) }
        )
    }
}
