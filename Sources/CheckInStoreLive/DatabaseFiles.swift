import CheckInStoreClient
import CheckInModels
import Glibc
import LinuxIO

/// File-system steps around the database file that SQLite does not do itself.
enum DatabaseFiles {
    /// The files SQLite keeps next to a database, which belong with it wherever it goes.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// Makes sure the directory that will hold `path` exists, creating missing ones with mode 0750
    /// (owner full access, group read: check-in times are personal data).
    static func ensureParentDirectory(of path: String) throws(StoreFailure) {
        let parent = directory(of: path)
        do throws(Errno) {
            try makeDirectory(parent)
        } catch {
            throw StoreFailure(.unavailable, "the directory \(parent) for the database \(path) does not exist "
                + "and could not be created (\(error)); create it (mode 0750, owned by the daemon's user) "
                + "or point the configuration at a writable location")
        }
        guard isDirectory(parent) else {
            throw StoreFailure(.unavailable, "\(parent) should hold the database \(path) but is not a directory; "
                + "move it away or point the configuration at another location")
        }
    }

    /// Checks what can be checked before SQLite touches the files, and throws `.corrupt` or
    /// `.readOnly` when opening would go wrong.
    ///
    /// Why not leave it to SQLite: on closing a connection to a file that is not a database,
    /// SQLite deletes the -wal beside it, and beside an empty file it deletes the -wal on opening.
    /// Damaged files must be moved aside whole, never trimmed, so those cases are caught first.
    /// And a new file in a read-only directory fails in SQLite with a misleading ENOENT.
    static func checkBeforeOpening(_ path: String) throws(StoreFailure) {
        let parent = directory(of: path)
        if access(parent, W_OK) != 0 {
            let failure = Errno.current
            // SQLite must be able to create the -wal and -shm files next to the database.
            throw StoreFailure(.readOnly, "cannot write the database \(path): its directory \(parent) is not "
                + "writable (\(failure)); check the mount (read-only filesystem?) and the ownership, "
                + "then restart")
        }
        let size = fileSize(path)
        if let size, size > 0 {
            let header = readPrefix(path, count: sqliteHeader.count)
            if let header, header != sqliteHeader {
                throw StoreFailure(.corrupt, "\(path) does not start with the SQLite header, so it is not a database")
            }
        } else if let walSize = fileSize(path + "-wal"), walSize > 0 {
            throw StoreFailure(.corrupt, "\(path) is \(size == nil ? "missing" : "empty") but has a "
                + "write-ahead log (\(path)-wal) of \(walSize) bytes")
        }
    }

    /// The most a database file may allow: owner read/write, group read (check-in times are
    /// personal data; the group lets a technician's tools read them).
    static let fileMode: mode_t = 0o640

    /// Creates `path` empty with mode 0640 unless something is there already. SQLite would create
    /// it 0644 (less the umask), and gives the -wal, -shm and -journal files the main file's mode,
    /// so creating it first is what keeps all four private whatever the umask.
    static func createPrivately(_ path: String) throws(StoreFailure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, fileMode)
        if descriptor >= 0 {
            close(descriptor)
            return
        }
        let failure = Errno.current
        switch failure.code {
        case EEXIST:
            return
        case EACCES, EPERM, EROFS:
            throw StoreFailure(.readOnly, "cannot create the database \(path) (\(failure)); check the mount and "
                + "the ownership of \(directory(of: path)), then restart")
        case ENOSPC, EDQUOT:
            throw StoreFailure(.full, "disk full: cannot create the database \(path) (\(failure)); free space on "
                + "the filesystem holding \(directory(of: path))")
        default:
            throw StoreFailure(.unavailable, "cannot create the database \(path) (\(failure))")
        }
    }

    /// Takes away every permission beyond 0640 from the database and its companion files: a file
    /// an earlier release created 0644 becomes private too. Best effort: a file this user does not
    /// own keeps its mode (chmod is refused), and the store works on regardless.
    static func narrowModes(of path: String) {
        for file in [path] + companionSuffixes.map({ path + $0 }) {
            var info = stat()
            guard lstat(file, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { continue }
            let permissions = info.st_mode & 0o7777
            if permissions & ~fileMode != 0 { chmod(file, permissions & fileMode) }
        }
    }

    /// Renames `file` to `<path>.<reason>-<timestamp>[-n]<suffix>` (never deleting anything) and
    /// returns the new name: a companion file that must not stay beside the database at `path`.
    static func moveOutOfTheWay(_ file: String, of path: String, suffix: String, reason: String, now: WallTime)
        throws(StoreFailure) -> String {
        let base = "\(path).\(reason)-\(compactTimestamp(now))"
        var target = base + suffix
        var attempt = 2
        while exists(target) {
            target = "\(base)-\(attempt)\(suffix)"
            attempt += 1
        }
        guard rename(file, target) == 0 else {
            let failure = Errno.current
            throw StoreFailure(.unavailable, "could not move \(file) out of the way of the database \(path) "
                + "(to \(target): \(failure)); move it by hand")
        }
        syncDirectory(directory(of: path))
        return target
    }

    /// Deletes a file of the store's own that nothing needs any more (the old handle's renamed
    /// -wal/-shm after recovery copied its rows). A failure leaves a stray file, nothing worse.
    static func removeOwnFile(_ file: String) {
        unlink(file)
    }

    /// The first 16 bytes of every SQLite 3 database file (sqlite.org/fileformat.html, 1.3).
    static let sqliteHeader = Array("SQLite format 3\u{0}".utf8)

    /// Renames the damaged database and its companion files to `<path>.corrupt-<timestamp>[-n]`,
    /// never deleting anything, and returns the new path of the database file itself.
    ///
    /// The companions go first: a stale -wal left beside a fresh database could be replayed into it,
    /// whereas a damaged main file left behind is simply found and moved again on the next open.
    static func moveAside(_ path: String, now: WallTime) throws(StoreFailure) -> String {
        let base = "\(path).corrupt-\(compactTimestamp(now))"
        var target = base
        var attempt = 2
        while exists(target) || companionSuffixes.contains(where: { exists(target + $0) }) {
            target = "\(base)-\(attempt)"
            attempt += 1
        }
        for suffix in companionSuffixes + [""] where exists(path + suffix) {
            guard rename(path + suffix, target + suffix) == 0 else {
                let failure = Errno.current
                throw StoreFailure(.unavailable, "database \(path) is damaged, and moving \(path + suffix) aside "
                    + "to \(target + suffix) failed (\(failure)); move or remove it by hand, then restart")
            }
        }
        // Make the renames themselves durable; if this fails the renames still happened.
        syncDirectory(directory(of: path))
        return target
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// Bytes the service's (unprivileged) user may still write on the file system holding `path`,
    /// or nil if the file system cannot be asked.
    static func availableBytes(on path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Up to `count` bytes from the start of the file, or nil if it cannot be read (SQLite will say why).
    private static func readPrefix(_ path: String, count: Int) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        guard read >= 0 else { return nil }
        return Array(bytes.prefix(read))
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// `mkdir -p` with mode 0750 for each directory it creates.
    private static func makeDirectory(_ path: String) throws(Errno) {
        if path.isEmpty || path == "/" || path == "." || exists(path) { return }
        try makeDirectory(directory(of: path))
        if mkdir(path, 0o750) != 0 {
            let failure = Errno.current
            if failure.code != EEXIST { throw failure }
        }
    }

    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    /// `20261122T215519Z`: sorts by time and needs no quoting in a shell.
    static func compactTimestamp(_ time: WallTime) -> String {
        String(time.iso8601.prefix(19).filter { $0 != "-" && $0 != ":" }) + "Z"
    }
}

/// An OS error number with its text, as the user should see it.
struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    var code: Int32
    static var current: Errno { Errno(code: errno) }
    var description: String { errnoDescription(code) }
}
