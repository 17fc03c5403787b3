import Glibc
import LinuxIO
import SQLiteDatabase

/// Doctor's look at the check-in store: the file (or, before the first start, its directory) can be
/// written by the daemon, and SQLite's `PRAGMA integrity_check` says "ok".
enum StoreProbe {
    static func check(path: String, serviceUser: String = "lifesignal") -> [DoctorFinding] {
        let name = "store"
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            let directory = parentDirectory(of: path)
            if code == ENOENT {
                if access(directory, W_OK) == 0 || isDirectory(directory) {
                    return [.warning(name, "no store yet at \(path); lifesignald creates it when it starts",
                                     fix: "start the daemon: sudo systemctl start lifesignald")]
                }
                return [.problem(name, "neither \(path) nor its directory \(directory) exists",
                                 fix: "check [store] path in the config; for the service, StateDirectory=lifesignal creates /var/lib/lifesignal")]
            }
            return [.problem(name, "cannot look at \(path): \(errnoText(code))",
                             fix: code == EACCES ? "run doctor as root (sudo lifesignalctl doctor)" : "check [store] path in the config")]
        }
        var findings: [DoctorFinding] = []
        if info.st_mode & S_IFMT != S_IFREG {
            return [.problem(name, "\(path) is not a regular file", fix: "point [store] path at a database file")]
        }
        if let owner = userName(info.st_uid), owner != serviceUser, owner != currentUserName(), geteuid() == 0 {
            findings.append(.warning(name, "\(path) is owned by \(owner), not \(serviceUser)",
                                     fix: "sudo chown \(serviceUser):\(serviceUser) \(path)*"))
        }
        if access(path, W_OK) != 0 && errno != EACCES {
            findings.append(.problem(name, "\(path) is not writable: \(errnoText(errno))",
                                     fix: "the file system may be read-only or full: check `findmnt -T \(path)` and `df -h \(path)`"))
        }
        findings.append(integrity(path))
        return findings
    }

    /// Runs `PRAGMA integrity_check` on a read-only connection. This is safe beside the running
    /// daemon (WAL readers do not block its writes) and, run as root, does not leave root-owned
    /// files behind: SQLite gives any -wal/-shm file it creates the database file's owner.
    static func integrity(_ path: String) -> DoctorFinding {
        let name = "store integrity"
        do {
            let connection = try Connection(path: path, mode: .readOnly)
            let rows = try connection.pragmaRows("integrity_check")
            guard rows == ["ok"] else {
                let shown = rows.prefix(3).joined(separator: "; ")
                return .problem(name, "PRAGMA integrity_check on \(path) reports: \(shown)",
                                fix: "stop the daemon, copy \(path)* somewhere safe, then start it: a corrupt store is moved aside (never deleted) and a new one begun")
            }
            let count = (try? connection.pragma("page_count")).flatMap { $0 } ?? "?"
            return .ok(name, "\(path): integrity_check ok (\(count) pages)")
        } catch {
            let permission = error.code.primary == .cantOpen || error.systemErrno == EACCES
            return .problem(name, "cannot check \(path): \(error)",
                            fix: permission ? "run doctor as root (sudo lifesignalctl doctor)" : "stop the daemon, copy \(path)* somewhere safe and look at it with sqlite3")
        }
    }

    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

func userName(_ uid: uid_t) -> String? {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return nil }
    return String(cString: name)
}

func currentUserName() -> String? { userName(geteuid()) }
