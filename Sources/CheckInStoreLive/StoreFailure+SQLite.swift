import CheckInStoreClient
import SQLiteDatabase
import Glibc

extension StoreFailure {
    /// Turns an SQLite failure into what the device and its operator can act on.
    ///
    /// - Parameter action: what the store was doing, as a verb phrase ("record a check-in").
    init(_ error: SQLiteError, while action: String) {
        let path = error.path
        let detail = "(\(error))"
        switch Self.kind(of: error) {
        case .full:
            self.init(.full, "disk full: could not \(action) in \(path); free space on the filesystem "
                + "holding \(directory(of: path)) \(detail)")
        case .readOnly:
            self.init(.readOnly, "cannot write \(path): the file or its directory \(directory(of: path)) "
                + "is read-only or not writable by this user; check the mount and the ownership, "
                + "then restart \(detail)")
        case .corrupt:
            self.init(.corrupt, "database \(path) is damaged, could not \(action); stop lifesignald, move "
                + "the file (with its -wal and -shm files) aside or restore a backup, and start it again: "
                + "a missing database is created fresh \(detail)")
        case .unavailable where error.code.primary == .cantOpen:
            self.init(.unavailable, "could not \(action): cannot open \(path); check that \(directory(of: path)) "
                + "exists and is accessible to this user \(detail)")
        case .unavailable:
            self.init(.unavailable, "could not \(action): database \(path) is locked by another process; "
                + "make sure only one lifesignald uses it \(detail)")
        default:
            self.init(.other, "could not \(action) in \(path) \(detail)")
        }
    }

    /// Which kind of failure an SQLite error is, judged by its code and the OS error behind it.
    static func kind(of error: SQLiteError) -> Kind {
        if error.systemErrno == ENOSPC || error.systemErrno == EDQUOT { return .full }
        switch error.code.primary {
        case .full:
            return .full
        case .readOnly:
            return .readOnly
        case .cantOpen where [EACCES, EPERM, EROFS].contains(error.systemErrno):
            return .readOnly
        case .cantOpen:
            return .unavailable
        case .corrupt, .notADatabase:
            return .corrupt
        case .busy, .locked:
            return .unavailable
        default:
            return .other
        }
    }
}

/// The directory holding `path` ("." for a bare file name).
func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}
