public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Per-item rejections by the backend, and delivery to further targets (healthchecks checks),
/// each with its own state so that one target's outage never holds up another (schema v2).
extension CheckInDatabase {
    // MARK: Backend rejections

    /// Flags check-ins the backend refused by id with its message; they leave the upload queue
    /// (`pendingCheckIns`) but stay stored and listed by `refusedUploads`. Returns how many changed.
    @discardableResult
    public func markUploadRefused(_ refusals: [(id: CheckInID, message: String)]) throws(StoreFailure) -> Int {
        try changeEach(refusals, "UPDATE check_ins SET upload_rejection = ?2 WHERE id = ?1 AND uploaded_at_us IS NULL",
                       while: "flag \(refusals.count) check-ins as refused by the backend") { refusal in
            [.text(refusal.id.description), .text(refusal.message)]
        }
    }

    /// Check-ins the backend refused, oldest first.
    public func refusedUploads(limit: Int) throws(StoreFailure) -> [RefusedCheckIn] {
        try fetchRefused("""
            SELECT \(CheckInRow.columns), upload_rejection FROM check_ins
            WHERE uploaded_at_us IS NULL AND upload_rejection IS NOT NULL ORDER BY insertion_order LIMIT ?1
            """, [.integer(Int64(clamping: limit))], while: "read the check-ins the backend refused")
    }

    public func refusedUploadCount() throws(StoreFailure) -> Int {
        try countRows("SELECT count(*) FROM check_ins WHERE uploaded_at_us IS NULL AND upload_rejection IS NOT NULL",
                      while: "count the check-ins the backend refused")
    }

    // MARK: Further targets

    /// Makes `target` known; the first time, it starts with the next check-in recorded (history
    /// made before the target was configured is not delivered to it). Idempotent.
    public func registerDeliveryTarget(_ target: String) throws(StoreFailure) {
        try write("register the delivery target \(target)") { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO delivery_targets (target, first_insertion_order)
                VALUES (?1, (SELECT coalesce(max(insertion_order), 0) + 1 FROM check_ins))
                ON CONFLICT (target) DO NOTHING
                """)
            try insert.bind(.text(target))
            try insert.step()
        }
    }

    /// Check-ins not yet delivered to (nor refused by) `target`, oldest first.
    public func pendingDeliveries(target: String, limit: Int) throws(StoreFailure) -> [CheckInRecord] {
        try fetch("""
            SELECT \(CheckInRow.columns) FROM check_ins c
            \(Self.undelivered) ORDER BY c.insertion_order LIMIT ?2
            """, [.text(target), .integer(Int64(clamping: limit))], while: "read the check-ins pending for \(target)") { row throws(SQLiteError) in
            try CheckInRow.record(from: row)
        }
    }

    public func pendingDeliveryCount(target: String) throws(StoreFailure) -> Int {
        try fetch("SELECT count(*) FROM check_ins c \(Self.undelivered)", [.text(target)],
                  while: "count the check-ins pending for \(target)") { row throws(SQLiteError) in
            Int(try row.int64(at: 0))
        }.first ?? 0
    }

    /// Records that `target` answered 2xx for these check-ins. Returns how many were newly marked.
    @discardableResult
    public func markDelivered(target: String, ids: [CheckInID], at time: WallTime) throws(StoreFailure) -> Int {
        try changeEach(ids, """
            INSERT INTO deliveries (target, check_in_id, delivered_at_us) VALUES (?1, ?2, ?3)
            ON CONFLICT DO NOTHING
            """, while: "mark \(ids.count) check-ins as delivered to \(target)") { id in
            [.text(target), .text(id.description), .integer(time.microsecondsSinceEpoch)]
        }
    }

    /// Records that `target` refused these check-ins for good; they leave its queue.
    @discardableResult
    public func markDeliveryRefused(target: String, _ refusals: [(id: CheckInID, message: String)]) throws(StoreFailure) -> Int {
        try changeEach(refusals, """
            INSERT INTO deliveries (target, check_in_id, rejection) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING
            """, while: "flag \(refusals.count) check-ins as refused by \(target)") { refusal in
            [.text(target), .text(refusal.id.description), .text(refusal.message)]
        }
    }

    /// Check-ins `target` refused, oldest first.
    public func refusedDeliveries(target: String, limit: Int) throws(StoreFailure) -> [RefusedCheckIn] {
        try fetchRefused("""
            SELECT \(CheckInRow.columns), d.rejection
            FROM deliveries d JOIN check_ins c ON c.id = d.check_in_id
            WHERE d.target = ?1 AND d.rejection IS NOT NULL ORDER BY c.insertion_order LIMIT ?2
            """, [.text(target), .integer(Int64(clamping: limit))], while: "read the check-ins \(target) refused")
    }

    /// Where each of `ids` stands with `target` (`history`'s words per target).
    public func deliveryMarks(target: String, ids: [CheckInID]) throws(StoreFailure) -> [CheckInID: DeliveryMark] {
        var marks: [CheckInID: DeliveryMark] = [:]
        guard !ids.isEmpty else { return marks }
        let rows = try fetch("""
            SELECT c.id, d.delivered_at_us IS NOT NULL, d.rejection IS NOT NULL,
                   c.insertion_order >= coalesce(t.first_insertion_order, 9223372036854775807)
            FROM check_ins c
            LEFT JOIN delivery_targets t ON t.target = ?1
            LEFT JOIN deliveries d ON d.target = ?1 AND d.check_in_id = c.id
            WHERE c.id IN (\(ids.indices.map { "?\($0 + 2)" }.joined(separator: ", ")))
            """, [.text(target)] + ids.map { .text($0.description) },
            while: "read where \(ids.count) check-ins stand with \(target)") { row throws(SQLiteError) in
            (try row.text(at: 0), try row.int64(at: 1) != 0, try row.int64(at: 2) != 0, try row.int64(at: 3) != 0)
        }
        for (id, delivered, refused, afterStart) in rows {
            guard let id = CheckInID(id) else { continue }
            marks[id] = delivered ? .delivered : refused ? .refused : afterStart ? .waiting : .notSent
        }
        return marks
    }

    // MARK: Helpers

    /// The check-ins from the target's start on without a delivery row (?1 = the target).
    private static let undelivered = """
        JOIN delivery_targets t ON t.target = ?1
        WHERE c.insertion_order >= t.first_insertion_order
          AND NOT EXISTS (SELECT 1 FROM deliveries d WHERE d.target = ?1 AND d.check_in_id = c.id)
        """

    func changeEach<Item>(_ items: [Item], _ sql: String, while action: String,
                                  values: (Item) -> [SQLiteValue]) throws(StoreFailure) -> Int {
        try write(action) { () throws(SQLiteError) -> Int in
            let statement = try connection.prepare(sql)
            var changed = 0
            for item in items {
                try statement.bind(values: values(item))
                try statement.step()
                changed += connection.changes
            }
            return changed
        }
    }

    private func fetchRefused(_ sql: String, _ values: [SQLiteValue], while action: String) throws(StoreFailure) -> [RefusedCheckIn] {
        try fetch(sql, values, while: action) { row throws(SQLiteError) in
            RefusedCheckIn(record: try CheckInRow.record(from: row), message: try row.text(at: 7))
        }
    }

    func fetch<Row>(_ sql: String, _ values: [SQLiteValue], while action: String,
                            row read: (Statement) throws(SQLiteError) -> Row) throws(StoreFailure) -> [Row] {
        do throws(SQLiteError) {
            let select = try connection.prepare(sql)
            try select.bind(values: values)
            var rows: [Row] = []
            while try select.step() { rows.append(try read(select)) }
            return rows
        } catch {
            throw StoreFailure(error, while: action)
        }
    }
}
