@testable import ControlSocket
import Glibc
import TestSupport
import XCTest

/// Clients that connect and send nothing (or send slowly) must not keep others from being served.
/// The assertions are that a request is answered at all, with idle connections still open; how
/// fast is measured by `lifesignal-bench --phases idle-connections` (BENCHMARKS.md).
final class StarvationTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var socketPath: String { "\(directory.path)/run/control.sock" }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    /// Opens `count` connections that never send anything; the caller closes them.
    private func idleConnections(_ count: Int, to path: String) throws -> [Int32] {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        var descriptors: [Int32] = []
        for _ in 0..<count {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard descriptor >= 0 else {
                descriptors.forEach { close($0) }
                throw XCTSkip("socket failed after \(descriptors.count) connections: errno \(errno)")
            }
            // A full listen backlog makes connect wait; bounded so the old server fails the test
            // instead of hanging it.
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
                }
            }
            guard connected == 0 else {
                close(descriptor)
                break  // the server no longer takes connections: the request below shows the effect
            }
            descriptors.append(descriptor)
        }
        return descriptors
    }

    /// Room for `count` connections at both ends (this process holds both).
    private func descriptorsFor(_ count: Int) throws -> Int {
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        let room = (Int(clamping: limit.rlim_cur) - 256) / 2
        guard room >= 100 else { throw XCTSkip("only \(limit.rlim_cur) descriptors allowed") }
        return min(count, room)
    }

    func testAThousandIdleConnectionsDoNotStarveARealRequest() throws {
        let count = try descriptorsFor(1000)
        // Idle clients are given a minute: long enough that only eviction or room can save the request.
        let server = ControlServer(path: socketPath, requestTimeout: .seconds(60)) { request, _ in "echo: \(request)" }
        try server.start()
        defer { server.stop() }

        let idle = try idleConnections(count, to: socketPath)
        defer { idle.forEach { close($0) } }

        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(20)), "echo: status",
                       "with \(idle.count) idle connections open")
        XCTAssertEqual(idle.count, count, "every idle connection was taken")
    }

    func testWhenFullTheOldestIdleConnectionMakesRoom() throws {
        let server = ControlServer(path: socketPath, requestTimeout: .seconds(60), maxConnections: 8) { request, _ in
            "echo: \(request)"
        }
        try server.start()
        defer { server.stop() }
        let idle = try idleConnections(8, to: socketPath)
        defer { idle.forEach { close($0) } }

        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(20)), "echo: status")

        // The oldest idle connection was closed to make room (EOF, without an answer).
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(idle[0], SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var byte: UInt8 = 0
        XCTAssertEqual(recv(idle[0], &byte, 1, 0), 0, "the oldest idle connection was closed")
    }

    func testTheUserHoldingTheMostIdleConnectionsLosesItsOldest() {
        // uid 1000 floods; uid 1001 has one idle connection, older than all of them.
        let flood = (2...6).map { (id: UInt64($0), uid: UInt32(1000)) }
        XCTAssertEqual(ServerLoop.evictionVictim([(id: 1, uid: 1001)] + flood), 2)
        // Equal counts: the oldest connection overall.
        XCTAssertEqual(ServerLoop.evictionVictim([(id: 7, uid: 1), (id: 3, uid: 2), (id: 9, uid: 1), (id: 4, uid: 2)]), 3)
        XCTAssertNil(ServerLoop.evictionVictim([]))
    }

    func testTheConnectionLimitFollowsTheDescriptorLimit() {
        XCTAssertEqual(ControlServer.connectionLimit(descriptorLimit: 1024), 896)
        XCTAssertEqual(ControlServer.connectionLimit(descriptorLimit: 524_288), 4096)
        XCTAssertEqual(ControlServer.connectionLimit(descriptorLimit: 64), 16)
    }
}
