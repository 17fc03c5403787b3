import Glibc
import TestSupport
import XCTest

/// Plays systemd's side of `$NOTIFY_SOCKET`: a bound `SOCK_DGRAM` socket that collects datagrams.
final class NotifyReceiver {
    /// What to put in `NOTIFY_SOCKET`: a path, or `@name` for an abstract socket.
    let socketName: String
    private let descriptor: Int32
    /// Where the socket file is, removed with it when the receiver goes.
    private let directory: TemporaryDirectory?

    /// A socket file in a fresh temporary directory.
    static func inTemporaryDirectory() throws -> NotifyReceiver {
        let directory = try TemporaryDirectory(prefix: "lsnotify")
        return try NotifyReceiver(socketName: directory.file("notify"), directory: directory)
    }

    /// A socket in the abstract namespace, unique to this process and call.
    static func abstract() throws -> NotifyReceiver {
        try NotifyReceiver(socketName: "@lifesignal-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))", directory: nil)
    }

    private init(socketName: String, directory: TemporaryDirectory?) throws {
        self.socketName = socketName
        self.directory = directory
        descriptor = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw ReceiverError("socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketName.utf8)
        let isAbstract = bytes.first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (isAbstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else { throw ReceiverError("bind \(socketName): errno \(errno)") }
        // A bound on how long a test waits for a datagram that never comes (not a timing assertion).
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// The next datagram, exactly as sent; throws if none arrives within the receive timeout.
    func receive() throws -> String {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= 0 else { throw ReceiverError("recv on \(socketName): errno \(errno)") }
        return String(decoding: buffer.prefix(count), as: UTF8.self)
    }
}

struct ReceiverError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
