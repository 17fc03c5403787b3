import Glibc
public import LinuxIO

/// Speaks the service manager notification protocol directly, without libsystemd: one
/// `AF_UNIX` `SOCK_DGRAM` datagram per message to the socket named by `$NOTIFY_SOCKET` — a path,
/// or an abstract socket when it starts with `@` (see sd_notify(3), "Notes").
///
/// Owns its socket (close-on-exec, so children never inherit it) and closes it on deinit.
/// `send` is safe from any thread: it is a single `sendto` on an immutable descriptor.
public final class SystemdNotifier: Sendable {
    /// The socket as given in `$NOTIFY_SOCKET`.
    public let socketName: String
    private let descriptor: Int32
    private let address: sockaddr_un
    private let addressLength: socklen_t

    /// The notifier for `$NOTIFY_SOCKET`, or nil when the variable is unset or empty (not started
    /// by systemd, or not `Type=notify`): then there is no one to tell and nothing to do.
    public static func fromEnvironment(_ environment: [String: String]) throws(SystemError) -> SystemdNotifier? {
        guard let name = environment["NOTIFY_SOCKET"], !name.isEmpty else { return nil }
        return try SystemdNotifier(socketName: name)
    }

    /// - Parameter socketName: an absolute path, or `@name` for an abstract socket.
    public init(socketName: String) throws(SystemError) {
        guard let (address, length) = Self.address(for: socketName) else {
            throw SystemError("use notify socket", socketName, errno: EINVAL)
        }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .current("socket AF_UNIX/SOCK_DGRAM for", socketName) }
        self.socketName = socketName
        self.descriptor = fd
        self.address = address
        self.addressLength = length
    }

    deinit {
        close(descriptor)
    }

    /// Sends the messages together, as one datagram (systemd applies them at once).
    public func send(_ messages: [NotifyMessage]) throws(SystemError) {
        guard !messages.isEmpty else { return }
        try send(datagram: messages.map(\.assignment).joined(separator: "\n"))
    }

    public func send(_ message: NotifyMessage) throws(SystemError) {
        try send([message])
    }

    private func send(datagram: String) throws(SystemError) {
        var bytes = Array(datagram.utf8)
        var target = address
        let sent = bytes.withUnsafeMutableBytes { buffer in
            withUnsafePointer(to: &target) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                    retryingOnEINTR {
                        sendto(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL), socketAddress, addressLength)
                    }
                }
            }
        }
        guard sent >= 0 else { throw .current("send notification to", socketName) }
        guard sent == bytes.count else { throw SystemError("send whole notification to", socketName, errno: EMSGSIZE) }
    }

    /// The socket address for a `$NOTIFY_SOCKET` value, or nil if it is neither an absolute path
    /// nor `@abstract`, or does not fit `sun_path`.
    static func address(for name: String) -> (sockaddr_un, socklen_t)? {
        var bytes = Array(name.utf8)
        guard let first = bytes.first, first == UInt8(ascii: "/") || first == UInt8(ascii: "@"),
              bytes.count > 1, !bytes.contains(0) else { return nil }
        let isAbstract = first == UInt8(ascii: "@")
        if isAbstract { bytes[0] = 0 }  // the abstract namespace: a leading NUL, no terminator
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        // A path needs room for its terminating NUL; an abstract name may fill sun_path.
        guard bytes.count + (isAbstract ? 0 : 1) <= capacity else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        // sun_path follows sun_family directly on Linux.
        let pathOffset = MemoryLayout<sa_family_t>.size
        return (address, socklen_t(pathOffset + bytes.count + (isAbstract ? 0 : 1)))
    }
}
