import Glibc
import XCTest

/// A fresh directory from mkdtemp, with helpers for files and mounts; `remove()` undoes everything.
final class TemporaryDirectory {
    let path: String
    private var mounts: [String] = []

    init() throws {
        var template = Array("/tmp/lifesignal-store-test-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw TestFailure("mkdtemp failed: \(String(cString: strerror(errno)))")
        }
        path = String(cString: created)
    }

    func file(_ name: String) -> String { "\(path)/\(name)" }

    /// Unmounts what this directory mounted, then deletes it and everything in it.
    func remove() {
        for mountPoint in mounts.reversed() {
            umount2(mountPoint, Int32(MNT_DETACH))
        }
        mounts.removeAll()
        removeTree(path)
    }

    // MARK: Mounts (need CAP_SYS_ADMIN; tests skip without it)

    /// Mounts a tmpfs of `size` at a new subdirectory, to make a disk that fills up quickly.
    func mountTinyFilesystem(_ name: String, size: String) throws -> String {
        let mountPoint = try makeDirectory(name)
        try mountOrSkip(mountPoint) {
            "size=\(size),mode=0750".withCString { mount("tmpfs", mountPoint, "tmpfs", 0, $0) }
        }
        return mountPoint
    }

    /// Makes an existing subdirectory read-only by bind-mounting it onto itself read-only: unlike
    /// permission bits, this stops root too (EROFS), and the tests run as root.
    func makeReadOnly(_ directory: String) throws {
        try mountOrSkip(directory) { mount(directory, directory, nil, UInt(MS_BIND), nil) }
        let remounted = mount(nil, directory, nil, UInt(MS_REMOUNT | MS_BIND | MS_RDONLY), nil)
        guard remounted == 0 else {
            throw TestFailure("remount read-only of \(directory) failed: \(String(cString: strerror(errno)))")
        }
    }

    private func mountOrSkip(_ mountPoint: String, _ mountCall: () -> Int32) throws {
        guard mountCall() == 0 else {
            let failure = errno
            if failure == EPERM || failure == EACCES {
                throw XCTSkip("mounting needs CAP_SYS_ADMIN (mount failed: \(String(cString: strerror(failure))))")
            }
            throw TestFailure("mount at \(mountPoint) failed: \(String(cString: strerror(failure)))")
        }
        mounts.append(mountPoint)
    }

    // MARK: Files

    @discardableResult
    func makeDirectory(_ name: String) throws -> String {
        let directory = file(name)
        guard mkdir(directory, 0o750) == 0 else {
            throw TestFailure("mkdir \(directory) failed: \(String(cString: strerror(errno)))")
        }
        return directory
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o640)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("short write to \(path)") }
    }

    func read(_ path: String) throws -> [UInt8] {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        return bytes
    }

    func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The permission bits of `path`.
    func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// Names in a directory, without `.` and `..`, sorted.
    func list(_ directory: String) -> [String] {
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

    private func removeTree(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            for name in list(path) { removeTree("\(path)/\(name)") }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
