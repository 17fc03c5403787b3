import Glibc

/// Tells the device when the network may be back: a default route or a global address appeared
/// (`RouteMessages`). An AF_NETLINK/NETLINK_ROUTE socket joined to the address and route groups,
/// watched by `poll` with no timeout on a thread of its own: no polling, no wake-ups while the
/// network does not change. Needs no privileges (any user may listen to these groups); the unit's
/// RestrictAddressFamilies= must allow AF_NETLINK.
public final class NetworkMonitor: Sendable {
    private let socket: Int32
    private let loop: StoppableThread

    /// Opens the socket and starts watching; `onChange` runs on the monitor's thread, at most once
    /// per datagram that holds a relevant message (or when the kernel dropped messages for us).
    public static func start(onChange: @escaping @Sendable () -> Void) throws(SystemError) -> NetworkMonitor {
        let socket = try openRouteSocket()
        let monitor: NetworkMonitor
        do {
            monitor = NetworkMonitor(socket: socket, loop: try StoppableThread())
        } catch {
            close(socket)
            throw error
        }
        try monitor.loop.start(name: "netlink") { monitor.run(onChange: onChange) }
        return monitor
    }

    /// An AF_NETLINK route socket bound to `RouteMessages.groups` (exposed for tests).
    static func openRouteSocket() throws(SystemError) -> Int32 {
        let descriptor = Glibc.socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0 /* NETLINK_ROUTE */)
        guard descriptor >= 0 else { throw .current("socket", "AF_NETLINK/NETLINK_ROUTE") }
        // struct sockaddr_nl: family (u16), pad (u16), pid (u32, 0 = let the kernel choose), groups (u32).
        var address = NetlinkAddress(family: sa_family_t(AF_NETLINK), pad: 0, pid: 0, groups: RouteMessages.groups)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<NetlinkAddress>.size)) }
        }
        guard bound == 0 else {
            let error = SystemError.current("bind", "AF_NETLINK route groups")
            close(descriptor)
            throw error
        }
        return descriptor
    }

    private init(socket: Int32, loop: StoppableThread) {
        self.socket = socket
        self.loop = loop
    }

    /// Stops the thread and waits for it. Idempotent.
    public func stop() {
        loop.stop()
    }

    deinit {
        close(socket)
    }

    private func run(onChange: @Sendable () -> Void) {
        var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: loop.wakeup.descriptor, events: Int16(POLLIN), revents: 0)]
        var buffer = [UInt8](repeating: 0, count: 32 * 1024)
        while !loop.isStopping {
            let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
            if ready < 0 {
                if errno == EINTR { continue }
                return
            }
            if loop.isStopping { return }
            guard descriptors[0].revents != 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count < 0 {
                // ENOBUFS: the kernel dropped messages for us; something changed, so say so.
                if errno == ENOBUFS { onChange() }
                continue
            }
            if !RouteMessages.findings(in: Array(buffer.prefix(count))).isEmpty { onChange() }
        }
    }
}

/// `struct sockaddr_nl` (Swift's Glibc module does not import linux/netlink.h).
struct NetlinkAddress {
    var family: sa_family_t
    var pad: UInt16
    var pid: UInt32
    var groups: UInt32
}
