public import Glibc

extension TemporaryDirectory {
    /// Makes the subdirectory `name` (mode 0750) and returns its path.
    @discardableResult
    public func makeDirectory(_ name: String) throws -> String {
        let directory = file(name)
        guard mkdir(directory, 0o750) == 0 else {
            throw TestFailure("mkdir \(directory) failed: \(String(cString: strerror(errno)))")
        }
        return directory
    }

    /// Writes `text` to the file `name` in this directory with `mode`, and returns its path.
    @discardableResult
    public func write(_ name: String, _ text: String, mode: mode_t = 0o640) throws -> String {
        let path = file(name)
        try write(Array(text.utf8), to: path)
        guard chmod(path, mode) == 0 else { throw TestFailure("chmod \(path): \(String(cString: strerror(errno)))") }
        return path
    }

    /// Writes `bytes` to the file at `path` (created or truncated).
    public func write(_ bytes: [UInt8], to path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o640)
        guard descriptor >= 0 else { throw TestFailure("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestFailure("short write to \(path)") }
    }

    /// The whole file at `path`.
    public func read(_ path: String) throws -> [UInt8] {
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

    /// Whether anything (a link included) is at `path`.
    public func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    /// The permission bits of `path`.
    public func mode(_ path: String) -> mode_t? {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
    }

    /// Names in `directory`, without `.` and `..`, sorted.
    public func list(_ directory: String) -> [String] {
        Self.entries(of: directory)
    }
}
