public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// The watchers the person removed from their responders (schema v10). A synced commit like a
/// check-in: a watcher removed must stay removed after a power cut.
extension CheckInDatabase {
    public func removedWatchers() throws(StoreFailure) -> [RemovedWatcher] {
        do throws(SQLiteError) {
            let select = try connection.prepare("SELECT id, name, removed_at_us FROM removed_watchers ORDER BY removed_at_us, id")
            var watchers: [RemovedWatcher] = []
            while try select.step() {
                watchers.append(RemovedWatcher(id: try select.text(at: 0), name: try select.text(at: 1),
                                               removedAt: WallTime(microsecondsSinceEpoch: try select.int64(at: 2))))
            }
            return watchers
        } catch {
            throw StoreFailure(error, while: "read the removed watchers")
        }
    }

    public func removeWatcher(_ watcher: RemovedWatcher) throws(StoreFailure) {
        try write("remove the watcher \(watcher.name)") { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO removed_watchers (id, name, removed_at_us) VALUES (?1, ?2, ?3)
                ON CONFLICT (id) DO UPDATE SET name = excluded.name, removed_at_us = excluded.removed_at_us
                """)
            try insert.bind(.text(watcher.id), .text(watcher.name), .integer(watcher.removedAt.microsecondsSinceEpoch))
            try insert.step()
        }
    }

    public func allowWatcher(id: String) throws(StoreFailure) {
        try write("allow the watcher \(id) again") { () throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM removed_watchers WHERE id = ?1")
            try delete.bind(.text(id))
            try delete.step()
        }
    }
}
