import CSQLite
import Glibc
import LinuxIO

/// A failed SQLite call: what was attempted, on which file, and everything SQLite and the OS said.
public struct SQLiteError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. `open`, `prepare`, `step`, `execute BEGIN IMMEDIATE`.
    public var operation: String
    /// The database file's path as given to `Connection.init`.
    public var path: String
    /// The extended result code (e.g. `SQLITE_CONSTRAINT_PRIMARYKEY`); `code.primary` is the base code.
    public var code: SQLiteResultCode
    /// `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// `sqlite3_system_errno`: the errno of the last failing OS call inside SQLite, 0 if none.
    public var systemErrno: Int32

    public init(operation: String, path: String, code: SQLiteResultCode, message: String, systemErrno: Int32 = 0) {
        self.operation = operation
        self.path = path
        self.code = code
        self.message = message
        self.systemErrno = systemErrno
    }

    public var description: String {
        var text = "SQLite \(operation) on \(path) failed: \(message) "
            + "(result code \(code.primary.rawValue) \(code.primary.name), extended \(code.rawValue)"
        if systemErrno != 0 {
            text += "; \(errnoDescription(systemErrno))"
        }
        return text + ")"
    }
}

/// An SQLite result code, extended or primary. Named constants cover the codes callers branch on.
public struct SQLiteResultCode: RawRepresentable, Hashable, Sendable {
    public var rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The primary code: the low byte of an extended code (sqlite.org/rescode.html).
    public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

    /// SQLite's English text for the code (`sqlite3_errstr`), e.g. "database or disk is full".
    public var name: String { String(cString: sqlite3_errstr(rawValue)) }

    public static let ok = SQLiteResultCode(rawValue: SQLITE_OK)
    public static let error = SQLiteResultCode(rawValue: SQLITE_ERROR)
    public static let permission = SQLiteResultCode(rawValue: SQLITE_PERM)
    public static let busy = SQLiteResultCode(rawValue: SQLITE_BUSY)
    public static let locked = SQLiteResultCode(rawValue: SQLITE_LOCKED)
    public static let noMemory = SQLiteResultCode(rawValue: SQLITE_NOMEM)
    public static let readOnly = SQLiteResultCode(rawValue: SQLITE_READONLY)
    public static let ioError = SQLiteResultCode(rawValue: SQLITE_IOERR)
    public static let corrupt = SQLiteResultCode(rawValue: SQLITE_CORRUPT)
    public static let full = SQLiteResultCode(rawValue: SQLITE_FULL)
    public static let cantOpen = SQLiteResultCode(rawValue: SQLITE_CANTOPEN)
    public static let constraint = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT)
    public static let mismatch = SQLiteResultCode(rawValue: SQLITE_MISMATCH)
    public static let misuse = SQLiteResultCode(rawValue: SQLITE_MISUSE)
    public static let notADatabase = SQLiteResultCode(rawValue: SQLITE_NOTADB)
    public static let range = SQLiteResultCode(rawValue: SQLITE_RANGE)

    // Extended codes are C macro expressions (`SQLITE_CONSTRAINT | (6<<8)`), which Swift cannot
    // import; the sub-codes below are copied from sqlite3.h and fixed by SQLite's compatibility promise.
    public static let constraintCheck = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (1 << 8))
    public static let constraintPrimaryKey = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (6 << 8))
    public static let constraintUnique = SQLiteResultCode(rawValue: SQLITE_CONSTRAINT | (8 << 8))
    public static let readOnlyDirectory = SQLiteResultCode(rawValue: SQLITE_READONLY | (6 << 8))
}
