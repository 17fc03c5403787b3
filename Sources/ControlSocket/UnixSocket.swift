import Glibc
import LinuxIO

/// Small helpers over the BSD socket calls for `AF_UNIX` stream sockets.
enum UnixSocket {
    /// A new close-on-exec stream socket.
    static func make() throws(SystemError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .current("socket", "AF_UNIX") }
        return descriptor
    }

    /// The address for `path`, or nil if it does not fit `sun_path` (108 bytes with the NUL).
    static func address(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, !bytes.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    /// The directory part of `path` ("/" for "/x", "." for a bare name).
    static func parentDirectory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path`.
    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }

    static func pathTooLong(_ path: String) -> ControlSocketError {
        ControlSocketError(.invalidPath, path: path,
                           message: "control socket path \(path) is too long for a Unix socket (max 107 bytes)")
    }

    /// `connect`, returning 0 or the errno.
    static func connect(_ descriptor: Int32, to address: sockaddr_un) -> Int32 {
        var address = address
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                retryingOnEINTR { Glibc.connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
        }
        return result == 0 ? 0 : errno
    }

    static func bind(_ descriptor: Int32, to address: sockaddr_un) -> Int32 {
        var address = address
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                Glibc.bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0 ? 0 : errno
    }

    static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Sets both send and receive timeouts of a blocking socket (they bound connect, too).
    static func setTimeouts(_ descriptor: Int32, _ timeout: Duration) {
        let clamped = max(timeout, .milliseconds(1))
        var value = timeval(
            tv_sec: Int(clamped.components.seconds),
            tv_usec: Int(clamped.components.attoseconds / 1_000_000_000_000)
        )
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &value, size)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &value, size)
    }
}
