import CheckInModels
import SQLiteDatabase

/// The columns every queued row shares (check-ins and alerts): id, both clocks, source, upload state.
///
/// A value that does not parse means the file was damaged or written by something else: the
/// schema's CHECK constraints keep this code from storing one. It is reported as CORRUPT.
struct QueuedRow {
    /// The SELECT list `init(_:kind:)` expects, in this order.
    static let columns = "id, wall_time_us, uptime_us, boot_id, wall_clock_synchronized, source, uploaded_at_us"

    var id: CheckInID
    var at: DeviceInstant
    var source: String
    var upload: UploadState

    /// - Parameter kind: what the row holds ("check-in", "alert"), for messages.
    init(_ row: Statement, kind: String) throws(SQLiteError) {
        let idText = try row.text(at: 0)
        guard let id = CheckInID(idText) else { throw Self.damaged(row, kind, "id '\(idText)' is not a UUID") }
        self.id = id
        at = DeviceInstant(
            wall: WallTime(microsecondsSinceEpoch: try row.int64(at: 1)),
            uptime: .microseconds(try row.int64(at: 2)),
            bootID: try row.text(at: 3),
            wallClockSynchronized: try row.bool(at: 4))
        source = try row.text(at: 5)
        upload = switch try row.optionalInt64(at: 6) {
        case nil: .pending
        case let microseconds?: .uploaded(at: WallTime(microsecondsSinceEpoch: microseconds))
        }
    }

    /// The source parsed as `Source`, or a CORRUPT error naming the row.
    func source<Source: RawRepresentable<String>>(as _: Source.Type, _ row: Statement, kind: String)
        throws(SQLiteError) -> Source {
        guard let parsed = Source(rawValue: source) else {
            throw Self.damaged(row, kind, "\(kind) \(id) has unknown source '\(source)'")
        }
        return parsed
    }

    private static func damaged(_ row: Statement, _ kind: String, _ message: String) -> SQLiteError {
        SQLiteError(operation: "read a \(kind)", path: row.connection.path, code: .corrupt, message: message)
    }
}

/// How a check-in is laid out in a row of `check_ins`.
enum CheckInRow {
    static let columns = QueuedRow.columns

    static func record(from row: Statement) throws(SQLiteError) -> CheckInRecord {
        let fields = try QueuedRow(row, kind: "check-in")
        return CheckInRecord(id: fields.id, at: fields.at, source: try fields.source(as: CheckInSource.self, row, kind: "check-in"),
                             upload: fields.upload)
    }
}

/// How an alert is laid out in a row of `alerts`.
enum AlertRow {
    static let columns = QueuedRow.columns

    static func record(from row: Statement) throws(SQLiteError) -> AlertRecord {
        let fields = try QueuedRow(row, kind: "alert")
        return AlertRecord(id: fields.id, at: fields.at, source: try fields.source(as: AlertSource.self, row, kind: "alert"),
                           upload: fields.upload)
    }
}
