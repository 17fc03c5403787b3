import CheckInModels
import DeviceAPI
import SQLiteDatabase
import Synchronization

/// The dev server's own SQLite file: check-ins and help alerts by (device, id), each device's settings.
final class DevStore: Sendable {
    /// Internal, not private: the notifications extension (another file) uses it too.
    let connection: Mutex<Connection>

    init(path: String) throws(SQLiteError) {
        let connection = try Connection(path: path)
        _ = try connection.pragma("journal_mode", set: "WAL")
        try connection.pragma("synchronous", set: "FULL")
        // Every commit is still fsynced before its acknowledgement. The unique index on random
        // UUIDs makes each batch of 500 touch a page of that index per check-in once it is large:
        // with SQLite's defaults (2 MiB cache, checkpoint every 1,000 pages) a 100,000-row backlog
        // wrote 535 MiB and the server waited on the disk for most of the upload (BENCHMARKS.md).
        // A larger cache and checkpoints every 10,000 pages (a WAL of up to 40 MiB) let one
        // checkpoint write a page that many batches changed: 375 MiB, and far fewer page reads.
        _ = try connection.pragma("cache_size", set: "-16384")
        _ = try connection.pragma("wal_autocheckpoint", set: "10000")
        // Check-ins and alerts have the same columns.
        for table in Table.allCases {
            try connection.execute("""
                CREATE TABLE IF NOT EXISTS \(table.rawValue) (
                    device_id TEXT NOT NULL,
                    id TEXT NOT NULL,
                    wall_time TEXT NOT NULL,
                    wall_clock_synchronized INTEGER NOT NULL,
                    uptime_us INTEGER NOT NULL,
                    boot_id TEXT NOT NULL,
                    source TEXT NOT NULL,
                    received_at TEXT NOT NULL,
                    -- How many times the device sent it: above 1 means an acknowledgement was lost.
                    receipts INTEGER NOT NULL DEFAULT 1,
                    PRIMARY KEY (device_id, id)
                )
                """)
        }
        try connection.execute("""
            CREATE TABLE IF NOT EXISTS settings (
                device_id TEXT PRIMARY KEY NOT NULL,
                interval_s INTEGER NOT NULL,
                reminder_s INTEGER NOT NULL,
                version INTEGER NOT NULL
            );
            -- seq orders pings for the device's cursor; answered_at stays NULL until a response arrives.
            CREATE TABLE IF NOT EXISTS pings (
                seq INTEGER PRIMARY KEY AUTOINCREMENT,
                device_id TEXT NOT NULL,
                id TEXT NOT NULL UNIQUE,
                responder_id TEXT NOT NULL,
                responder_name TEXT NOT NULL,
                created_at TEXT NOT NULL,
                answered_at TEXT
            );
            CREATE TABLE IF NOT EXISTS ping_responses (
                device_id TEXT NOT NULL,
                id TEXT NOT NULL,
                ping_id TEXT NOT NULL,
                check_in_id TEXT NOT NULL,
                wall_time TEXT NOT NULL,
                received_at TEXT NOT NULL,
                receipts INTEGER NOT NULL DEFAULT 1,
                PRIMARY KEY (device_id, id)
            );
            """)
        try connection.execute(Self.notificationTables)
        try connection.execute(Self.dailyLifeTables)
        try connection.execute(Self.dependentsTables)
        try connection.execute(Self.respondersTables)
        self.connection = Mutex(connection)
    }

    /// Which table: check-ins and alerts have the same columns.
    enum Table: String, CaseIterable {
        case checkIns = "check_ins"
        case alerts
    }

    /// Stores the batch in one transaction; an id already stored only counts one more receipt.
    func store(_ checkIns: [UploadedCheckIn], in table: Table = .checkIns, device: String, receivedAt: String)
        throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in
                let insert = try connection.prepare("""
                    INSERT INTO \(table.rawValue) (device_id, id, wall_time, wall_clock_synchronized, uptime_us, boot_id,
                                           source, received_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)
                    ON CONFLICT (device_id, id) DO UPDATE SET receipts = receipts + 1
                    """)
                for item in checkIns {
                    try insert.bind(.text(device), .text(item.id), .text(item.wallTime), .bool(item.wallClockSynchronized),
                                    .integer(item.uptimeMicroseconds), .text(item.bootId), .text(item.source),
                                    .text(receivedAt))
                    _ = try insert.step()
                    insert.reset()
                }
            }
        }
    }

    func checkIns(device: String?, in table: Table = .checkIns) throws(SQLiteError) -> [StoredCheckIn] {
        try connection.withLock { connection throws(SQLiteError) -> [StoredCheckIn] in
            let select = try connection.prepare("""
                SELECT device_id, id, wall_time, wall_clock_synchronized, uptime_us, boot_id, source, received_at, receipts
                FROM \(table.rawValue) WHERE ?1 IS NULL OR device_id = ?1 ORDER BY rowid
                """)
            try select.bind(.text(orNull: device))
            var rows: [StoredCheckIn] = []
            while try select.step() {
                rows.append(StoredCheckIn(
                    deviceId: try select.text(at: 0),
                    checkIn: UploadedCheckIn(id: try select.text(at: 1), wallTime: try select.text(at: 2),
                                             wallClockSynchronized: try select.bool(at: 3),
                                             uptimeMicroseconds: try select.int64(at: 4), bootId: try select.text(at: 5),
                                             source: try select.text(at: 6)),
                    receivedAt: try select.text(at: 7), receipts: Int(try select.int64(at: 8))))
            }
            return rows
        }
    }

    func settings(device: String) throws(SQLiteError) -> DeviceSettings? {
        try connection.withLock { connection throws(SQLiteError) -> DeviceSettings? in
            let select = try connection.prepare("""
                SELECT interval_s, reminder_s, version, away_from, away_until FROM settings
                LEFT JOIN away USING (device_id) WHERE device_id = ?1
                """)
            try select.bind(.text(device))
            guard try select.step() else { return nil }
            return DeviceSettings(intervalSeconds: try select.int64(at: 0), reminderSeconds: try select.int64(at: 1),
                                  version: try select.int64(at: 2), awayFrom: try select.optionalText(at: 3),
                                  awayUntil: try select.optionalText(at: 4))
        }
    }

    func saveSettings(_ settings: DeviceSettings, device: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let upsert = try connection.prepare("""
                INSERT INTO settings (device_id, interval_s, reminder_s, version) VALUES (?1, ?2, ?3, ?4)
                ON CONFLICT (device_id) DO UPDATE SET interval_s = excluded.interval_s,
                    reminder_s = excluded.reminder_s, version = excluded.version
                """)
            try upsert.bind(.text(device), .integer(settings.intervalSeconds), .integer(settings.reminderSeconds),
                            .integer(settings.version))
            _ = try upsert.step()
            // Away mode goes with the settings' version: absent means not away.
            let away = try connection.prepare("""
                INSERT INTO away (device_id, away_from, away_until) VALUES (?1, ?2, ?3)
                ON CONFLICT (device_id) DO UPDATE SET away_from = excluded.away_from, away_until = excluded.away_until
                """)
            try away.bind(.text(device), settings.awayFrom.map { .text($0) } ?? .null, settings.awayUntil.map { .text($0) } ?? .null)
            _ = try away.step()
        }
    }

    /// Away mode with the settings, the device's own events (docs/device-api.yaml).
    static let dailyLifeTables = """
        CREATE TABLE IF NOT EXISTS away (
            device_id TEXT PRIMARY KEY NOT NULL,
            away_from TEXT,
            away_until TEXT
        );
        CREATE TABLE IF NOT EXISTS device_events (
            device_id TEXT NOT NULL,
            id TEXT NOT NULL,
            kind TEXT NOT NULL,
            detail TEXT NOT NULL,
            wall_time TEXT NOT NULL,
            received_at TEXT NOT NULL,
            receipts INTEGER NOT NULL DEFAULT 1,
            PRIMARY KEY (device_id, id)
        );
        """

    /// Stores an event once per id; a repeat only counts one more receipt.
    func storeEvent(_ event: UploadedEvent, device: String, receivedAt: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO device_events (device_id, id, kind, detail, wall_time, received_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                ON CONFLICT (device_id, id) DO UPDATE SET receipts = receipts + 1
                """)
            try insert.bind(.text(device), .text(event.id), .text(event.kind), .text(event.detail), .text(event.wallTime),
                            .text(receivedAt))
            _ = try insert.step()
        }
    }

    /// The events a device sent, in arrival order (every device's when nil).
    func events(device: String?) throws(SQLiteError) -> [StoredEvent] {
        try connection.withLock { connection throws(SQLiteError) -> [StoredEvent] in
            let select = try connection.prepare("""
                SELECT device_id, id, kind, detail, wall_time, receipts FROM device_events
                WHERE ?1 IS NULL OR device_id = ?1 ORDER BY rowid
                """)
            try select.bind(device.map { .text($0) } ?? .null)
            var events: [StoredEvent] = []
            while try select.step() {
                events.append(StoredEvent(device: try select.text(at: 0), id: try select.text(at: 1), kind: try select.text(at: 2),
                                          detail: try select.text(at: 3), wallTime: try select.text(at: 4),
                                          receipts: Int(try select.int64(at: 5))))
            }
            return events
        }
    }

    // MARK: Pings

    func createPing(_ ping: Ping, device: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO pings (device_id, id, responder_id, responder_name, created_at) VALUES (?1, ?2, ?3, ?4, ?5)
                """)
            try insert.bind(.text(device), .text(ping.id), .text(ping.responderId), .text(ping.responderName),
                            .text(ping.createdAt))
            _ = try insert.step()
        }
    }

    /// Unanswered pings of `device` after the cursor `after` (a seq), oldest first, with the cursor
    /// to give next time (the last seq returned, or `after` when none).
    func pendingPings(device: String, after: Int64) throws(SQLiteError) -> PingList {
        let rows = try pingRows(device: device, after: after, includingAnswered: false)
        return PingList(pings: rows.map(\.ping.ping), cursor: String(rows.last?.seq ?? after))
    }

    /// Every ping of `device` (answered or not), oldest first.
    func pings(device: String) throws(SQLiteError) -> [StoredPing] {
        try pingRows(device: device, after: 0, includingAnswered: true).map(\.ping)
    }

    private func pingRows(device: String, after: Int64, includingAnswered: Bool) throws(SQLiteError)
        -> [(seq: Int64, ping: StoredPing)] {
        try connection.withLock { connection throws(SQLiteError) -> [(seq: Int64, ping: StoredPing)] in
            // A withdrawn ping is no longer pending (the admin view still lists it, with when).
            let select = try connection.prepare("""
                SELECT seq, id, responder_id, responder_name, created_at, answered_at, withdrawn_at FROM pings
                LEFT JOIN withdrawn_pings ON ping_id = id
                WHERE device_id = ?1 AND seq > ?2 AND (?3 OR (answered_at IS NULL AND withdrawn_at IS NULL)) ORDER BY seq
                """)
            try select.bind(.text(device), .integer(after), .integer(includingAnswered ? 1 : 0))
            var rows: [(seq: Int64, ping: StoredPing)] = []
            while try select.step() {
                let ping = Ping(id: try select.text(at: 1), responderId: try select.text(at: 2),
                                responderName: try select.text(at: 3), createdAt: try select.text(at: 4))
                rows.append((try select.int64(at: 0), StoredPing(ping: ping, answeredAt: try select.optionalText(at: 5),
                                                                 withdrawnAt: try select.optionalText(at: 6))))
            }
            return rows
        }
    }

    /// Stores the responses in one transaction (an id already stored only counts one more receipt)
    /// and marks the pings they answer as answered (the first answer's time stays).
    func storeResponses(_ responses: [UploadedPingResponse], device: String, receivedAt: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            try connection.transaction { () throws(SQLiteError) in
                let insert = try connection.prepare("""
                    INSERT INTO ping_responses (device_id, id, ping_id, check_in_id, wall_time, received_at)
                    VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                    ON CONFLICT (device_id, id) DO UPDATE SET receipts = receipts + 1
                    """)
                let answer = try connection.prepare("""
                    UPDATE pings SET answered_at = ?3 WHERE device_id = ?1 AND id = ?2 AND answered_at IS NULL
                    """)
                for item in responses {
                    try insert.bind(.text(device), .text(item.id), .text(item.pingId), .text(item.checkInId),
                                    .text(item.wallTime), .text(receivedAt))
                    _ = try insert.step()
                    insert.reset()
                    try answer.bind(.text(device), .text(item.pingId), .text(receivedAt))
                    _ = try answer.step()
                    answer.reset()
                }
            }
        }
    }

    func pingResponses(device: String) throws(SQLiteError) -> [StoredPingResponse] {
        try connection.withLock { connection throws(SQLiteError) -> [StoredPingResponse] in
            let select = try connection.prepare("""
                SELECT id, ping_id, check_in_id, wall_time, received_at, receipts FROM ping_responses
                WHERE device_id = ?1 ORDER BY rowid
                """)
            try select.bind(.text(device))
            var rows: [StoredPingResponse] = []
            while try select.step() {
                rows.append(StoredPingResponse(
                    response: UploadedPingResponse(id: try select.text(at: 0), pingId: try select.text(at: 1),
                                                   checkInId: try select.text(at: 2), wallTime: try select.text(at: 3)),
                    receivedAt: try select.text(at: 4), receipts: Int(try select.int64(at: 5))))
            }
            return rows
        }
    }
}

/// A device event as the reference backend stored it.
public struct StoredEvent: Codable, Hashable, Sendable {
    public var device: String
    public var id: String
    public var kind: String
    public var detail: String
    public var wallTime: String
    /// Above 1: the device sent it again (an acknowledgement was lost).
    public var receipts: Int
}
