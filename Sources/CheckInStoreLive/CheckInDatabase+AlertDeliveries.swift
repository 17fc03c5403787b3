public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// Help alerts to further targets (a healthchecks alert check), each with its own delivery state
/// (schema v6), like check-ins' (`CheckInDatabase+Deliveries.swift`).
extension CheckInDatabase {
    /// Makes `target` known. The first time, it starts with the oldest alert that no target has
    /// delivered yet (a request for help still unanswered is worth sending now; one already
    /// delivered elsewhere is not sent again), or with the next alert. Idempotent.
    public func registerAlertDeliveryTarget(_ target: String) throws(StoreFailure) {
        try write("register the alert target \(target)") { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO alert_delivery_targets (target, first_insertion_order)
                VALUES (?1, coalesce(
                    (SELECT min(a.insertion_order) FROM alerts a WHERE a.uploaded_at_us IS NULL
                       AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = a.id AND d.delivered_at_us IS NOT NULL)),
                    (SELECT coalesce(max(insertion_order), 0) + 1 FROM alerts)))
                ON CONFLICT (target) DO NOTHING
                """)
            try insert.bind(.text(target))
            try insert.step()
        }
    }

    /// Alerts not yet delivered to (nor refused by) `target`, oldest first.
    public func pendingAlertDeliveries(target: String, limit: Int) throws(StoreFailure) -> [AlertRecord] {
        try fetch("SELECT \(AlertRow.columns) FROM alerts a \(Self.alertUndelivered) ORDER BY a.insertion_order LIMIT ?2",
                  [.text(target), .integer(Int64(clamping: limit))], while: "read the alerts pending for \(target)") { row throws(SQLiteError) in
            try AlertRow.record(from: row)
        }
    }

    public func pendingAlertDeliveryCount(target: String) throws(StoreFailure) -> Int {
        try fetch("SELECT count(*) FROM alerts a \(Self.alertUndelivered)", [.text(target)],
                  while: "count the alerts pending for \(target)") { row throws(SQLiteError) in
            Int(try row.int64(at: 0))
        }.first ?? 0
    }

    /// Records that `target` took these alerts. Returns how many were newly marked.
    @discardableResult
    public func markAlertsDelivered(target: String, ids: [AlertID], at time: WallTime) throws(StoreFailure) -> Int {
        try changeEach(ids, """
            INSERT INTO alert_deliveries (target, alert_id, delivered_at_us) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING
            """, while: "mark \(ids.count) alerts as delivered to \(target)") { id in
            [.text(target), .text(id.description), .integer(time.microsecondsSinceEpoch)]
        }
    }

    /// Alerts no target has taken yet, oldest first: what the LEDs show as "sending". One taken
    /// by a target configured then and not now still reached someone, so it is not sent as new.
    public func undeliveredAlerts(limit: Int) throws(StoreFailure) -> [AlertRecord] {
        try fetch("""
            SELECT \(AlertRow.columns) FROM alerts a WHERE a.uploaded_at_us IS NULL
              AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.alert_id = a.id AND d.delivered_at_us IS NOT NULL)
            ORDER BY a.insertion_order LIMIT ?1
            """, [.integer(Int64(clamping: limit))], while: "read the alerts no target has taken") { row throws(SQLiteError) in
            try AlertRow.record(from: row)
        }
    }

    /// The alerts from the target's start on without a delivery row (?1 = the target).
    private static let alertUndelivered = """
        JOIN alert_delivery_targets t ON t.target = ?1
        WHERE a.insertion_order >= t.first_insertion_order
          AND NOT EXISTS (SELECT 1 FROM alert_deliveries d WHERE d.target = ?1 AND d.alert_id = a.id)
        """
}
