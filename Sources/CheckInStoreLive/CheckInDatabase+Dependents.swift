public import CheckInModels
public import CheckInStoreClient
import SQLiteDatabase

/// A watcher's dependents added by a pairing code and its sort option (schema v9). Each change
/// is a synced commit like a check-in: a dependent added must still be watched after a power cut.
extension CheckInDatabase {
    public func storedDependents() throws(StoreFailure) -> StoredDependents {
        do throws(SQLiteError) {
            let select = try connection.prepare(
                "SELECT name, source, address, heartbeat_s FROM dependents ORDER BY insertion_order")
            var entries: [DependentEntry] = []
            while try select.step() {
                let name = try select.text(at: 0), kind = try select.text(at: 1), address = try select.text(at: 2)
                guard let source = DependentSource(kind: kind, address: address) else {
                    throw SQLiteError(operation: "read the dependents", path: path, code: .corrupt,
                                      message: "dependent \(name) has an unknown source '\(kind)'")
                }
                entries.append(DependentEntry(name: name, source: source, heartbeat: .seconds(try select.int64(at: 3))))
            }
            let sort = try connection.prepare("SELECT sort_option FROM dependents_view WHERE singleton = 1")
            let option = try sort.step() ? DependentsSortOption(rawValue: try sort.text(at: 0)) : nil
            return StoredDependents(entries: entries, sortOption: option)
        } catch {
            throw StoreFailure(error, while: "read the dependents")
        }
    }

    public func addDependent(_ entry: DependentEntry) throws(StoreFailure) {
        try write("add the dependent \(entry.name)") { () throws(SQLiteError) in
            let insert = try connection.prepare("""
                INSERT INTO dependents (name, source, address, heartbeat_s, insertion_order)
                VALUES (?1, ?2, ?3, ?4, (SELECT coalesce(max(insertion_order), 0) + 1 FROM dependents))
                ON CONFLICT (name) DO UPDATE SET source = excluded.source, address = excluded.address,
                    heartbeat_s = excluded.heartbeat_s
                """)
            try insert.bind(.text(entry.name), .text(entry.source.kind), .text(entry.source.address),
                            .integer(max(1, entry.heartbeat.components.seconds)))
            try insert.step()
        }
    }

    public func removeDependent(named name: String) throws(StoreFailure) {
        try write("remove the dependent \(name)") { () throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM dependents WHERE name = ?1")
            try delete.bind(.text(name))
            try delete.step()
        }
    }

    public func saveDependentsSortOption(_ option: DependentsSortOption) throws(StoreFailure) {
        try write("save the dependents' sort option") { () throws(SQLiteError) in
            let upsert = try connection.prepare("""
                INSERT INTO dependents_view (singleton, sort_option) VALUES (1, ?1)
                ON CONFLICT (singleton) DO UPDATE SET sort_option = excluded.sort_option
                """)
            try upsert.bind(.text(option.rawValue))
            try upsert.step()
        }
    }
}
