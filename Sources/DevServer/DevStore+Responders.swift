import DeviceAPI
import SQLiteDatabase
import Synchronization

/// What the dev server keeps for a device's responders beyond its watchers (the `watches`
/// table): the contacts the family added, as the app would.
extension DevStore {
    static let respondersTables = """
        -- channels and notified_of are comma-separated words (the routes allow no comma in them).
        CREATE TABLE IF NOT EXISTS contacts (
            device_id TEXT NOT NULL,
            id TEXT NOT NULL,
            name TEXT NOT NULL,
            channels TEXT NOT NULL,
            notified_of TEXT NOT NULL,
            PRIMARY KEY (device_id, id)
        );
        """

    /// The devices that watch `dependent`, in the order they started watching: `dependents(of:)`
    /// the other way round.
    func watchers(of dependent: String) throws(SQLiteError) -> [String] {
        try connection.withLock { connection throws(SQLiteError) -> [String] in
            let select = try connection.prepare("SELECT watcher_id FROM watches WHERE dependent_id = ?1 ORDER BY rowid")
            try select.bind(.text(dependent))
            var ids: [String] = []
            while try select.step() { ids.append(try select.text(at: 0)) }
            return ids
        }
    }

    /// Adds or replaces contact `id` of `device`; a replaced contact keeps its place in the list.
    func saveContact(_ contact: ResponderContact, notifiedOf: [String], id: String, device: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let upsert = try connection.prepare("""
                INSERT INTO contacts (device_id, id, name, channels, notified_of) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (device_id, id) DO UPDATE SET name = excluded.name, channels = excluded.channels,
                    notified_of = excluded.notified_of
                """)
            try upsert.bind(.text(device), .text(id), .text(contact.name), .text(contact.channels.joined(separator: ",")),
                            .text(notifiedOf.joined(separator: ",")))
            _ = try upsert.step()
        }
    }

    func removeContact(id: String, device: String) throws(SQLiteError) {
        try connection.withLock { connection throws(SQLiteError) in
            let delete = try connection.prepare("DELETE FROM contacts WHERE device_id = ?1 AND id = ?2")
            try delete.bind(.text(device), .text(id))
            _ = try delete.step()
        }
    }

    /// `device`'s contacts as responders, in the order they were first added.
    func contacts(of device: String) throws(SQLiteError) -> [WireResponder] {
        try connection.withLock { connection throws(SQLiteError) -> [WireResponder] in
            let select = try connection.prepare("""
                SELECT id, name, channels, notified_of FROM contacts WHERE device_id = ?1 ORDER BY rowid
                """)
            try select.bind(.text(device))
            func words(_ text: String) -> [String] { text.split(separator: ",").map(String.init) }
            var contacts: [WireResponder] = []
            while try select.step() {
                contacts.append(WireResponder(id: try select.text(at: 0), name: try select.text(at: 1), kind: "contact",
                                              channels: words(try select.text(at: 2)), notifiedOf: words(try select.text(at: 3))))
            }
            return contacts
        }
    }
}
