import Glibc

/// An errno value as an error, for callers that decide by the code (ENOENT is not EACCES).
public struct Errno: Error, Hashable, Sendable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
}

/// Why a file could not be read: a failed system call (with its errno), or a file of the wrong
/// kind or size.
public struct FileReadError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The errno of the failed call; nil when the file itself is unsuitable (not a regular file, too large).
    public var code: Int32?
    /// "No such file or directory", "it is a FIFO (named pipe), not a regular file; …".
    public var description: String

    public init(code: Int32?, description: String) {
        self.code = code
        self.description = description
    }

    /// There is no such file (as opposed to one that cannot be read).
    public var isMissing: Bool { code == ENOENT }
    public var isPermissionDenied: Bool { code == EACCES }

    static func system(_ code: Int32) -> FileReadError {
        FileReadError(code: code, description: errnoText(code))
    }
}

/// Reads a whole (small) regular file, e.g. a config file.
///
/// Anything but a regular file is refused before a byte is read: a FIFO would block until someone
/// writes to it, a device may never end (/dev/zero) or have side effects, a directory has no text.
/// Opening does not block (O_NONBLOCK) and makes no terminal the controlling one (O_NOCTTY).
public func readRegularFile(_ path: String, limit: Int = 1 << 20) -> Result<[UInt8], FileReadError> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
    guard descriptor >= 0 else { return .failure(.system(errno)) }
    defer { close(descriptor) }
    var info = stat()
    guard fstat(descriptor, &info) == 0 else { return .failure(.system(errno)) }
    guard info.st_mode & S_IFMT == S_IFREG else {
        return .failure(FileReadError(code: nil, description: "it is \(fileKind(info.st_mode)), not a regular file; "
                                      + "give the path of the file itself"))
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return .failure(.system(errno))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        if bytes.count > limit {
            return .failure(FileReadError(code: EFBIG, description: "it is larger than \(limit) bytes"))
        }
    }
    return .success(bytes)
}

/// Reads a whole (small) text file, e.g. one in /proc; the errno on failure (EFBIG past `limit`,
/// EINVAL for a file that is not a regular file).
public func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, Errno> {
    switch readRegularFile(path, limit: limit) {
    case let .success(bytes): .success(String(decoding: bytes, as: UTF8.self))
    case let .failure(failure): .failure(Errno(code: failure.code ?? EINVAL))
    }
}

/// "a directory", "a FIFO (named pipe)", … for messages about a file of the wrong kind.
public func fileKind(_ mode: UInt32) -> String {
    switch mode & S_IFMT {
    case S_IFREG: "a regular file"
    case S_IFDIR: "a directory"
    case S_IFIFO: "a FIFO (named pipe)"
    case S_IFCHR: "a character device"
    case S_IFBLK: "a block device"
    case S_IFSOCK: "a socket"
    case S_IFLNK: "a symbolic link"
    default: "not a regular file"
    }
}
