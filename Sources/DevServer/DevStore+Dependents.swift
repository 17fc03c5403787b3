import CheckInModels
import DeviceAPI
import SQLiteDatabase
import Synchronization

/// What the dev server keeps for dependents: who watches whom, the pings a watcher withdrew, and
/// who said "I'm on it".
extension DevStore {
    static let dependentsTables = """
        CREATE TABLE IF NOT EXISTS watches (
            watcher_id TEXT NOT NULL,
            dependent_id TEXT NOT NULL,
            since TEXT NOT NULL,
            PRIMARY KEY (watcher_id, dependent_id)
        );
        -- A withdrawn ping is no longer pending for the person's device (pings keeps the ping itself).
        CREATE TABLE IF NOT EXISTS withdrawn_pings (
            ping_id TEXT PRIMARY KEY NOT NULL,
            withdrawn_at TEXT NOT NULL
        );
        CREATE TABLE IF NOT EXISTS on_it (
            dependent_id TEXT NOT NULL,
            watcher_id TEXT NOT NULL,
            watcher_name TEXT NOT NULL,
            at TEXT NOT NULL
        );
        """

    /// Idempotent: watching again keeps the first `since`.
    func watch(_ dependent: String, by watcher: String, since: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO watches (watcher_id, dependent_id, since) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING
                """)
            try insert.bind(.text(watcher), .text(dependent), .text(since))
            _ = try insert.step()
        }
    }

    func unwatch(_ dependent: String, by watcher: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM watches WHERE watcher_id = ?1 AND dependent_id = ?2")
            try delete.bind(.text(watcher), .text(dependent))
            _ = try delete.step()
        }
    }

    /// The devices `watcher` watches, in the order it started watching them.
    func dependents(of watcher: String) throws(SQLiteError) -> [String] {
        try connection.withLock { connection throws(SQLiteError) -> [String] in
            let select = try connection.prepare("SELECT dependent_id FROM watches WHERE watcher_id = ?1 ORDER BY rowid")
            try select.bind(.text(watcher))
            var ids: [String] = []
            while try select.step() { ids.append(try select.text(at: 0)) }
            return ids
        }
    }

    /// Everything the status of `dependent`, as `watcher` sees it, is derived from, but when their
    /// device was last heard from (the routes keep that).
    func facts(about dependent: String, for watcher: String, lastHeard: WallTime?) throws(SQLiteError) -> DependentFacts {
        let settings = try settings(device: dependent) ?? Routes.defaultSettings
        return try connection.withLock { connection throws(SQLiteError) -> DependentFacts in
            func latest(_ table: Table) throws(SQLiteError) -> WallTime? {
                let select = try connection.prepare(
                    "SELECT wall_time, wall_clock_synchronized, received_at FROM \(table.rawValue) WHERE device_id = ?1")
                try select.bind(.text(dependent))
                var latest: WallTime?
                while try select.step() {
                    // A press without a synchronised clock counts from when the server received it.
                    let text = try select.bool(at: 1) ? try select.text(at: 0) : try select.text(at: 2)
                    if let time = WallTime(iso8601: text), latest.map({ time > $0 }) ?? true { latest = time }
                }
                return latest
            }
            let lastCheckIn = try latest(.checkIns)
            let pending = try connection.prepare("""
                SELECT count(*) FROM pings WHERE device_id = ?1 AND responder_id = ?2 AND answered_at IS NULL
                    AND id NOT IN (SELECT ping_id FROM withdrawn_pings)
                """)
            try pending.bind(.text(dependent), .text(watcher))
            _ = try pending.step()
            let pingPending = try pending.int64(at: 0) > 0
            let onIt = try connection.prepare("SELECT watcher_name, at FROM on_it WHERE dependent_id = ?1 ORDER BY rowid DESC")
            try onIt.bind(.text(dependent))
            var onItName: String?
            // The latest "I'm on it", until their next check-in.
            if try onIt.step(), let at = WallTime(iso8601: try onIt.text(at: 1)), lastCheckIn.map({ at > $0 }) ?? true {
                onItName = try onIt.text(at: 0)
            }
            let away = settings.awayUntil.flatMap { WallTime(iso8601: $0) }.map { until in
                AwaySpan(from: settings.awayFrom.flatMap { WallTime(iso8601: $0) }, until: until)
            }
            return DependentFacts(lastCheckIn: lastCheckIn, lastAlert: try latest(.alerts), interval: .seconds(settings.intervalSeconds),
                                  reminder: .seconds(settings.reminderSeconds), away: away, lastHeard: lastHeard,
                                  pingPending: pingPending, onIt: onItName)
        }
    }

    /// `watcher`'s ping on `device` that waits for a press, if any.
    func pendingPing(on device: String, from watcher: String) throws(SQLiteError) -> Ping? {
        try connection.withLock { connection throws(SQLiteError) -> Ping? in
            let select = try connection.prepare("""
                SELECT id, responder_id, responder_name, created_at FROM pings
                WHERE device_id = ?1 AND responder_id = ?2 AND answered_at IS NULL
                    AND id NOT IN (SELECT ping_id FROM withdrawn_pings) ORDER BY seq LIMIT 1
                """)
            try select.bind(.text(device), .text(watcher))
            guard try select.step() else { return nil }
            return Ping(id: try select.text(at: 0), responderId: try select.text(at: 1), responderName: try select.text(at: 2),
                        createdAt: try select.text(at: 3))
        }
    }

    /// Withdraws every ping of `watcher` on `device` that is still unanswered; returns how many.
    func withdrawPings(on device: String, from watcher: String, at time: String) throws(SQLiteError) -> Int {
        try connection.withLock { connection throws(SQLiteError) -> Int in
            let insert = try connection.prepare("""
                INSERT INTO withdrawn_pings (ping_id, withdrawn_at)
                SELECT id, ?3 FROM pings WHERE device_id = ?1 AND responder_id = ?2 AND answered_at IS NULL
                ON CONFLICT DO NOTHING
                """)
            try insert.bind(.text(device), .text(watcher), .text(time))
            _ = try insert.step()
            return Int(connection.changes)
        }
    }

    func recordOnIt(_ dependent: String, watcher: String, name: String, at time: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let insert = try connection.prepare("INSERT INTO on_it (dependent_id, watcher_id, watcher_name, at) VALUES (?1, ?2, ?3, ?4)")
            try insert.bind(.text(dependent), .text(watcher), .text(name), .text(time))
            _ = try insert.step()
        }
    }
}
