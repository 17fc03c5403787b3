import SQLiteDatabase

/// Copies every row one database holds that another lacks, table by table (store recovery).
enum RowCopy {
    /// A table of the schema as the copy needs it.
    struct Table: Hashable, Sendable {
        var name: String
        /// The primary key: a row whose key the target has is already there.
        var key: [String]
        /// A UNIQUE order column numbered by the store (insertion order …), if any: a copied row
        /// whose number the target uses already gets the target's next number instead.
        var order: String?
        /// A one-row table (`singleton = 1`): a target created fresh by recovery takes the copied
        /// row over its defaults; an existing target keeps its own.
        var isSingleton = false
    }

    /// Every table of the latest schema, parents before children. A migration that adds a table
    /// must add it here: `copy` refuses a database with a table it does not know, and a test
    /// compares this list with the migrated schema.
    static let tables: [Table] = [
        Table(name: "check_ins", key: ["id"], order: "insertion_order"),
        Table(name: "settings", key: ["singleton"], isSingleton: true),
        Table(name: "notifications", key: ["id"], order: "local_order"),
        Table(name: "notification_changes", key: ["id"], order: "queue_order"),
        Table(name: "notification_settings", key: ["singleton"], isSingleton: true),
        Table(name: "pings", key: ["id"], order: "arrival_order"),
        Table(name: "ping_responses", key: ["id"], order: "insertion_order"),
        Table(name: "alerts", key: ["id"], order: "insertion_order"),
        Table(name: "delivery_targets", key: ["target"]),
        Table(name: "deliveries", key: ["target", "check_in_id"]),
        Table(name: "alert_delivery_targets", key: ["target"]),
        Table(name: "alert_deliveries", key: ["target", "alert_id"]),
        Table(name: "mqtt_events", key: ["id"], order: "sequence"),
        Table(name: "away_periods", key: ["id"], order: "insertion_order"),
        Table(name: "power_events", key: ["id"], order: "insertion_order"),
        Table(name: "run_mark", key: ["singleton"], isSingleton: true),
        Table(name: "dependents", key: ["name"], order: "insertion_order"),
        Table(name: "dependents_view", key: ["singleton"], isSingleton: true),
        Table(name: "removed_watchers", key: ["id"]),
    ]

    struct Counts {
        var copied: [String: Int] = [:]
        var renumbered: [String: Int] = [:]
        var alreadyPresent: [String: Int] = [:]
    }

    /// Copies into `target`, in one transaction (committed with the target's durability), every
    /// row of `source` whose primary key `target` lacks. Both must be at the latest schema.
    static func copy(from source: Connection, into target: Connection, replacingSingletons: Bool)
        throws(SQLiteError) -> Counts {
        let unknown = try tableNames(source).subtracting(tables.map(\.name))
        guard unknown.isEmpty else {
            throw SQLiteError(operation: "copy rows", path: source.path, code: .error,
                              message: "tables \(unknown.sorted()) are not known to the copy (RowCopy.tables)")
        }
        return try target.transaction { () throws(SQLiteError) -> Counts in
            var counts = Counts()
            for table in tables {
                try copy(table, from: source, into: target, replacingSingletons: replacingSingletons, counts: &counts)
            }
            return counts
        }
    }

    private static func copy(_ table: Table, from source: Connection, into target: Connection,
                             replacingSingletons: Bool, counts: inout Counts) throws(SQLiteError) {
        let columns = try columnNames(table.name, in: source)
        let list = columns.map(quoted).joined(separator: ", ")
        let keyIndexes = table.key.compactMap { columns.firstIndex(of: $0) }
        let orderIndex = table.order.flatMap { columns.firstIndex(of: $0) }
        let replace = table.isSingleton && replacingSingletons

        let select = try source.prepare(
            "SELECT \(list) FROM \(quoted(table.name)) ORDER BY \((table.order.map { [$0] } ?? table.key).map(quoted).joined(separator: ", "))")
        let present = try target.prepare("SELECT 1 FROM \(quoted(table.name)) WHERE "
            + table.key.enumerated().map { "\(quoted($1)) = ?\($0 + 1)" }.joined(separator: " AND "))
        let insert = try target.prepare("INSERT \(replace ? "OR REPLACE " : "")INTO \(quoted(table.name)) (\(list)) VALUES ("
            + columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ") + ")")
        let nextOrder = try table.order.map { order throws(SQLiteError) in
            try target.prepare("SELECT coalesce(max(\(quoted(order))), 0) + 1 FROM \(quoted(table.name))")
        }

        while try select.step() {
            var values: [SQLiteValue] = []
            for column in columns.indices { values.append(try select.value(at: Int32(column))) }
            try present.bind(values: keyIndexes.map { values[$0] })
            let exists = try present.step()
            present.reset()
            if exists && !replace {
                counts.alreadyPresent[table.name, default: 0] += 1
                continue
            }
            try insert.bind(values: values)
            do throws(SQLiteError) {
                try insert.step()
            } catch where error.code == .constraintUnique {
                guard let orderIndex, let nextOrder else { throw error }
                try nextOrder.bind(values: [])
                _ = try nextOrder.step()
                values[orderIndex] = .integer(try nextOrder.int64(at: 0))
                nextOrder.reset()
                try insert.bind(values: values)
                try insert.step()
                counts.renumbered[table.name, default: 0] += 1
            }
            insert.reset()
            counts.copied[table.name, default: 0] += 1
        }
    }

    /// The tables of a database, SQLite's own left out.
    static func tableNames(_ connection: Connection) throws(SQLiteError) -> Set<String> {
        let select = try connection.prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
        var names: Set<String> = []
        while try select.step() { names.insert(try select.text(at: 0)) }
        return names
    }

    private static func columnNames(_ table: String, in connection: Connection) throws(SQLiteError) -> [String] {
        let select = try connection.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
        try select.bind(.text(table))
        var names: [String] = []
        while try select.step() { names.append(try select.text(at: 0)) }
        return names
    }

    /// Names come from the schema, but quoting keeps them names whatever they are.
    private static func quoted(_ name: String) -> String {
        "\"" + name.flatMap { $0 == "\"" ? "\"\"" : String($0) } + "\""
    }
}
