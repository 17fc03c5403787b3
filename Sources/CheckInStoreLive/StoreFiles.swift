import Glibc

/// Which file a path names: device and inode. Two paths name the same file when both are equal.
struct FileIdentity: Hashable, Sendable, CustomStringConvertible {
    var device: UInt64
    var inode: UInt64

    /// The file at `path` now (following symlinks, as SQLite does), or the errno why there is none.
    static func of(_ path: String) -> Result<FileIdentity, Errno> {
        of(cPath: path.utf8CString)
    }

    /// `of(_:)` for a path already in C form: what a check before and after every write uses, so
    /// that it converts nothing and allocates nothing.
    static func of(cPath: ContiguousArray<CChar>) -> Result<FileIdentity, Errno> {
        var info = stat()
        let status = cPath.withUnsafeBufferPointer { stat($0.baseAddress!, &info) }
        guard status == 0 else { return .failure(.current) }
        return .success(FileIdentity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino)))
    }

    var description: String { "device \(device), inode \(inode)" }
}

/// The files an open store writes to — the database and its write-ahead log — as they were when
/// the connection opened them. A commit is durable at the configured path only while both are
/// still the files at their paths: once either is unlinked, renamed or replaced, commits go to a
/// file that nobody will find again (`rm` of a database in use keeps "working" until a restart).
struct StoreFiles: Hashable, Sendable {
    let path: String
    var database: FileIdentity
    var log: FileIdentity
    /// The -shm file, not checked (losing it loses nothing: SQLite rebuilds it from the WAL), but
    /// recovery must recognise it as the old handle's own.
    var sharedMemory: FileIdentity?
    /// The two checked paths in C form, converted once: `check()` runs before and after every write.
    private let databaseCPath: ContiguousArray<CChar>
    private let logCPath: ContiguousArray<CChar>

    init(path: String, database: FileIdentity, log: FileIdentity, sharedMemory: FileIdentity?) {
        self.path = path
        self.database = database
        self.log = log
        self.sharedMemory = sharedMemory
        databaseCPath = path.utf8CString
        logCPath = (path + "-wal").utf8CString
    }

    /// What is wrong with the files at the paths, or nil when they are still the open ones.
    func check() -> StoreDisplacement? {
        if let problem = Self.problem(at: databaseCPath, expected: database) { return .database(problem) }
        if let problem = Self.problem(at: logCPath, expected: log) { return .log(problem) }
        return nil
    }

    private static func problem(at path: ContiguousArray<CChar>, expected: FileIdentity) -> StoreDisplacement.Problem? {
        switch FileIdentity.of(cPath: path) {
        case let .success(found) where found == expected: return nil
        case let .success(found): return .replaced(by: found, was: expected)
        case let .failure(error) where error.code == ENOENT: return .missing
        case let .failure(error): return .unreadable(error)
        }
    }
}

/// How the open store's files differ from what is at their paths.
enum StoreDisplacement: Hashable, Sendable {
    enum Problem: Hashable, Sendable {
        case missing
        case replaced(by: FileIdentity, was: FileIdentity)
        case unreadable(Errno)
    }

    /// The database file itself: its rows are only in the open handle now.
    case database(Problem)
    /// Only the write-ahead log: the main file is in place, the WAL's commits are not.
    case log(Problem)

    /// "database /x.sqlite is missing", "… was replaced by another file (device 2049, inode 12; the
    /// open one is inode 11)", "its write-ahead log /x.sqlite-wal is missing".
    func describe(path: String) -> String {
        switch self {
        case let .database(problem): return "database \(path) " + Self.describe(problem)
        case let .log(problem): return "the write-ahead log \(path)-wal of database \(path) " + Self.describe(problem)
        }
    }

    private static func describe(_ problem: Problem) -> String {
        switch problem {
        case .missing:
            return "is missing (deleted or moved away while the store had it open)"
        case let .replaced(found, was):
            return "is a different file now (\(found); the store has \(was) open): it was replaced while in use"
        case let .unreadable(error):
            return "cannot be examined (\(error)), so the store cannot tell whether it is still the open file"
        }
    }
}
