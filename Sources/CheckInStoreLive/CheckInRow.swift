import CheckInModels
import SQLiteDatabase

/// How a check-in is laid out in a row of `check_ins`, in both directions.
enum CheckInRow {
    /// The SELECT list `record(from:)` expects, in this order.
    static let columns = "id, wall_time_us, uptime_us, boot_id, wall_clock_synchronized, source, uploaded_at_us"

    /// A value that does not parse means the file was damaged or written by something else: the
    /// schema's CHECK constraints keep this code from storing one. It is reported as CORRUPT.
    static func record(from row: Statement) throws(SQLiteError) -> CheckInRecord {
        let idText = try row.text(at: 0)
        guard let id = CheckInID(idText) else { throw damaged(row, "id '\(idText)' is not a UUID") }
        let sourceText = try row.text(at: 5)
        guard let source = CheckInSource(rawValue: sourceText) else {
            throw damaged(row, "check-in \(idText) has unknown source '\(sourceText)'")
        }
        let instant = DeviceInstant(
            wall: WallTime(microsecondsSinceEpoch: try row.int64(at: 1)),
            uptime: .microseconds(try row.int64(at: 2)),
            bootID: try row.text(at: 3),
            wallClockSynchronized: try row.bool(at: 4))
        let upload: UploadState = switch try row.optionalInt64(at: 6) {
        case nil: .pending
        case let microseconds?: .uploaded(at: WallTime(microsecondsSinceEpoch: microseconds))
        }
        return CheckInRecord(id: id, at: instant, source: source, upload: upload)
    }

    private static func damaged(_ row: Statement, _ message: String) -> SQLiteError {
        SQLiteError(operation: "read a check-in", path: row.connection.path, code: .corrupt, message: message)
    }
}
