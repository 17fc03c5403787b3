import Glibc

/// A fresh directory from `mkdtemp` under `$TMPDIR` (or /tmp), removed with everything in it (and
/// unmounted, where a test mounted something in it) by `remove()` or when it is let go. Its path is
/// short enough for Unix socket paths inside it.
public final class TemporaryDirectory {
    public let path: String
    var mounts: [String] = []

    /// `prefix` names the directory, so a leftover says which test made it.
    public init(prefix: String = "lifesignal-test") throws {
        let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        var template = Array("\(base)/\(prefix).XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TestFailure("mkdtemp in \(base) failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    deinit {
        remove()
    }

    /// The path of `name` inside this directory.
    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Unmounts what was mounted here, then deletes the directory and everything in it. Idempotent.
    public func remove() {
        for mountPoint in mounts.reversed() {
            umount2(mountPoint, Int32(MNT_DETACH))
        }
        mounts.removeAll()
        Self.removeTree(path)
    }

    static func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in entries(of: path) { removeTree("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }

    /// Names in a directory, without `.` and `..`, sorted.
    static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            var nameField = entry.pointee.d_name
            let name = withUnsafeBytes(of: &nameField) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }
}
