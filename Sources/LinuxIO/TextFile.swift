import Glibc

/// An errno value as an error, for callers that decide by the code (ENOENT is not EACCES).
public struct Errno: Error, Hashable, Sendable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
}

/// Reads a whole (small) text file, e.g. a config file; the errno on failure (EFBIG past `limit`).
public func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, Errno> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(Errno(code: errno)) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return .failure(Errno(code: errno))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        if bytes.count > limit { return .failure(Errno(code: EFBIG)) }
    }
    return .success(String(decoding: bytes, as: UTF8.self))
}
