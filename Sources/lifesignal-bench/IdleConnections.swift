import ControlProtocol
import ControlSocket
import Glibc
import LinuxIO

/// The idle-connections phase: how fast `status` is answered while many clients hold connections
/// open without sending anything (they must not starve the others; see docs/control-protocol.md).
extension Bench {
    func idleConnections() throws {
        let home = directory + "/idle-connections"
        let config = try DaemonConfig.write(in: home)
        let wanted = options.idleConnections
        // Room in this process for the idle connections (the daemon raises its own limit).
        let room = DescriptorLimit.raiseToHardLimit() - 64
        guard room >= wanted else {
            throw BenchError("only \(room) descriptors available for \(wanted) idle connections: raise ulimit -Hn")
        }
        let (daemon, _) = try startDaemon(config: config, log: home + "/daemon.log")
        defer { daemon.stop() }
        print("## status with idle connections open (\(options.statusRequests) requests one after another)")
        let before = try statusRoundTrips(config: config)
        print("no idle connections: \(before.summary)")

        let baseline = ProcFS.openDescriptors(daemon.pid) ?? 0
        let start = monotonic()
        var idle: [Int32] = []
        defer { idle.forEach { close($0) } }
        for _ in 0..<wanted {
            idle.append(try connectIdle(config.socket))
        }
        // The daemon has accepted them all once it holds as many more descriptors.
        while (ProcFS.openDescriptors(daemon.pid) ?? 0) < baseline + wanted {
            guard monotonic() - start < .seconds(10) else {
                throw BenchError("the daemon accepted only \((ProcFS.openDescriptors(daemon.pid) ?? 0) - baseline) of "
                                 + "\(wanted) idle connections within 10 s")
            }
            pause(.milliseconds(1))
        }
        let opened = monotonic() - start
        let during = try statusRoundTrips(config: config)
        // Each idle connection is given the daemon's request timeout (5 s) to send a line: the
        // requests above must all have run while every one of them was still open.
        let window = monotonic() - start
        let stillOpen = idle.filter(isOpenAndSilent).count
        print("\(wanted) idle connections (opened and accepted in \(milliseconds(opened))): \(during.summary)")
        print("idle connections still open after the requests: \(stillOpen) of \(wanted) "
              + "(\(milliseconds(window)) after the first was opened)")
        print("")
    }

    private func statusRoundTrips(config: DaemonConfig) throws -> Sample {
        let line = ControlCoding.encode(ControlRequest(.status))
        var sample = Sample()
        for index in 0..<options.statusRequests {
            let start = monotonic()
            let answer = try ControlClient.send(line, to: config.socket, timeout: .seconds(10))
            sample.add(monotonic() - start)
            guard case let .success(response) = ControlCoding.decode(ControlResponse.self, from: answer), response.ok else {
                throw BenchError("status \(index + 1) was not answered: \(answer)")
            }
        }
        return sample
    }

    /// A connection that sends nothing.
    private func connectIdle(_ path: String) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemError.current("socket", "AF_UNIX") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            let error = SystemError.current("connect", path)
            close(descriptor)
            throw error
        }
        return descriptor
    }

    /// Not closed by the daemon and nothing sent to it (an expired one gets an error line).
    private func isOpenAndSilent(_ descriptor: Int32) -> Bool {
        var byte: UInt8 = 0
        return recv(descriptor, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK)) < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }
}
