import CSQLite

/// A compiled SQL statement, the sole owner of its `sqlite3_stmt*` (finalized in `deinit`).
///
/// Parameters are numbered from 1 (as in SQLite), result columns from 0. A statement holds its
/// connection strongly, so the connection cannot close under it.
public final class Statement {
    public let connection: Connection
    public let sql: String
    let handle: OpaquePointer

    init(connection: Connection, sql: String) throws(SQLiteError) {
        var compiled: OpaquePointer?
        var tail: UnsafePointer<CChar>?
        let result = sql.withCString { text in
            let status = sqlite3_prepare_v2(connection.handle, text, -1, &compiled, &tail)
            // Anything but whitespace after the first statement would be silently ignored: refuse it.
            if status == SQLITE_OK, let tail, String(cString: tail).contains(where: { !$0.isWhitespace }) {
                sqlite3_finalize(compiled)
                compiled = nil
                return SQLITE_MISUSE
            }
            return status
        }
        if result == SQLITE_MISUSE {
            throw SQLiteError(operation: "prepare \(sql)", path: connection.path, code: .misuse,
                              message: "more than one statement; prepare them one at a time")
        }
        try connection.check(result, "prepare \(sql)")
        guard let compiled else {
            throw SQLiteError(operation: "prepare \(sql)", path: connection.path, code: .misuse,
                              message: "no SQL statement in the text")
        }
        self.connection = connection
        self.sql = sql
        self.handle = compiled
    }

    deinit {
        sqlite3_finalize(handle)
    }

    // MARK: Binding

    public func bind(_ value: Int64?, at parameter: Int32) throws(SQLiteError) {
        guard let value else { return try bindNull(at: parameter) }
        try check(sqlite3_bind_int64(handle, parameter, value), "bind parameter \(parameter)")
    }

    public func bind(_ value: String?, at parameter: Int32) throws(SQLiteError) {
        guard let value else { return try bindNull(at: parameter) }
        // Explicit length so embedded NULs survive; TRANSIENT makes SQLite copy the bytes now.
        let result = value.withCString { text in
            sqlite3_bind_text(handle, parameter, text, Int32(value.utf8.count), csqlite_transient())
        }
        try check(result, "bind parameter \(parameter)")
    }

    /// Stored as the integers 0 and 1 (SQLite has no boolean type).
    public func bind(_ value: Bool?, at parameter: Int32) throws(SQLiteError) {
        try bind(value.map { $0 ? 1 : 0 } as Int64?, at: parameter)
    }

    public func bindNull(at parameter: Int32) throws(SQLiteError) {
        try check(sqlite3_bind_null(handle, parameter), "bind parameter \(parameter)")
    }

    /// Resets the statement and binds `values` to parameters 1, 2, … in order.
    public func bind(_ values: SQLiteValue...) throws(SQLiteError) {
        try bind(values: values)
    }

    /// Resets the statement and binds `values` to parameters 1, 2, … in order.
    public func bind(values: [SQLiteValue]) throws(SQLiteError) {
        reset()
        for (offset, value) in values.enumerated() {
            let parameter = Int32(offset + 1)
            switch value {
            case .integer(let number): try bind(number, at: parameter)
            case .text(let text): try bind(text, at: parameter)
            case .null: try bindNull(at: parameter)
            }
        }
    }

    // MARK: Stepping

    /// Advances to the next row: true when a row is ready to read, false when the statement is done.
    @discardableResult
    public func step() throws(SQLiteError) -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw connection.error("step \(sql)", result: result)
        }
    }

    /// Makes the statement ready to run again and clears its bindings.
    public func reset() {
        // sqlite3_reset repeats the last step's error, which `step` has already thrown.
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Reading the current row

    public var columnCount: Int32 { sqlite3_column_count(handle) }

    public func isNull(at column: Int32) -> Bool {
        sqlite3_column_type(handle, column) == SQLITE_NULL
    }

    /// The column as an integer; any other storage class (NULL included) is an error, not a 0.
    public func int64(at column: Int32) throws(SQLiteError) -> Int64 {
        try expect(SQLITE_INTEGER, "INTEGER", at: column)
        return sqlite3_column_int64(handle, column)
    }

    public func optionalInt64(at column: Int32) throws(SQLiteError) -> Int64? {
        isNull(at: column) ? nil : try int64(at: column)
    }

    /// The column as text; any other storage class (NULL included) is an error.
    public func text(at column: Int32) throws(SQLiteError) -> String {
        try expect(SQLITE_TEXT, "TEXT", at: column)
        return unsafeText(at: column)
    }

    public func optionalText(at column: Int32) throws(SQLiteError) -> String? {
        isNull(at: column) ? nil : try text(at: column)
    }

    /// An integer column that must hold 0 or 1.
    public func bool(at column: Int32) throws(SQLiteError) -> Bool {
        switch try int64(at: column) {
        case 0: return false
        case 1: return true
        case let other:
            throw SQLiteError(operation: "read column \(column) of \(sql)", path: connection.path, code: .mismatch,
                              message: "expected a boolean (0 or 1), found \(other)")
        }
    }

    /// The column as whichever of INTEGER, TEXT or NULL it holds (what `bind(values:)` takes back):
    /// for copying rows whatever their columns. REAL and BLOB are an error (STRICT tables that
    /// use neither).
    public func value(at column: Int32) throws(SQLiteError) -> SQLiteValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(try int64(at: column))
        case SQLITE_TEXT: return .text(try text(at: column))
        default: return .integer(try int64(at: column))  // throws, naming the storage class found
        }
    }

    /// The column converted to text by SQLite whatever its storage class ("" for NULL); for pragmas.
    func unsafeText(at column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    private func expect(_ type: Int32, _ typeName: String, at column: Int32) throws(SQLiteError) {
        guard column >= 0, column < columnCount else {
            throw SQLiteError(operation: "read column \(column) of \(sql)", path: connection.path, code: .range,
                              message: "the statement has \(columnCount) columns")
        }
        let found = sqlite3_column_type(handle, column)
        guard found == type else {
            let names = [SQLITE_INTEGER: "INTEGER", SQLITE_FLOAT: "REAL", SQLITE_TEXT: "TEXT",
                         SQLITE_BLOB: "BLOB", SQLITE_NULL: "NULL"]
            throw SQLiteError(operation: "read column \(column) of \(sql)", path: connection.path, code: .mismatch,
                              message: "expected \(typeName), found \(names[found] ?? "type \(found)")")
        }
    }

    private func check(_ result: Int32, _ operation: @autoclosure () -> String) throws(SQLiteError) {
        try connection.check(result, "\(operation()) of \(sql)")
    }
}

@available(*, unavailable, message: "A Statement belongs to its connection's single owner")
extension Statement: Sendable {}

/// A value to bind with `Statement.bind(_:...)`.
public enum SQLiteValue: Hashable, Sendable {
    case integer(Int64)
    case text(String)
    case null

    public static func bool(_ value: Bool) -> SQLiteValue { .integer(value ? 1 : 0) }
    public static func integer(orNull value: Int64?) -> SQLiteValue { value.map { .integer($0) } ?? .null }
    public static func text(orNull value: String?) -> SQLiteValue { value.map { .text($0) } ?? .null }
}
