@testable import ControlSocket
import Glibc
import Synchronization
import TestSupport
import XCTest

final class ControlSocketTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var socketPath: String { "\(directory.path)/run/control.sock" }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func echoServer(
        path: String? = nil,
        authorize: (@Sendable (PeerCredentials) -> Bool)? = nil,
        maxRequestBytes: Int = 64 * 1024
    ) -> ControlServer {
        ControlServer(path: path ?? socketPath, maxRequestBytes: maxRequestBytes, authorize: authorize) { request, _ in
            "echo: \(request)"
        }
    }

    func testRoundTripOverARealSocket() throws {
        let server = echoServer()
        try server.start()
        defer { server.stop() }

        let response = try ControlClient.send("status", to: socketPath, timeout: .seconds(5))

        XCTAssertEqual(response, "echo: status")
        XCTAssertEqual(fileMode(socketPath).map { $0 & S_IFMT }, S_IFSOCK)
        XCTAssertEqual(fileMode(socketPath).map { $0 & 0o777 }, 0o660, "root and the service's group only")
        XCTAssertEqual(fileMode("\(directory.path)/run").map { $0 & 0o777 }, 0o750, "created parent directory")
    }

    func testHandlerSeesOurCredentials() throws {
        let seen = Mutex<PeerCredentials?>(nil)
        let server = ControlServer(path: socketPath) { _, peer in
            seen.withLock { $0 = peer }
            return "ok"
        }
        try server.start()
        defer { server.stop() }

        _ = try ControlClient.send("who", to: socketPath, timeout: .seconds(5))

        let peer = try XCTUnwrap(seen.withLock { $0 })
        XCTAssertEqual(peer.pid, getpid())
        XCTAssertEqual(peer.uid, getuid())
        XCTAssertEqual(peer.gid, getgid())
    }

    func testRefusedPeerGetsAnErrorLineAndNeverReachesTheHandler() throws {
        let calls = Mutex(0)
        let server = ControlServer(path: socketPath, authorize: { _ in false }) { _, _ in
            calls.withLock { $0 += 1 }
            return "should not be sent"
        }
        try server.start()
        defer { server.stop() }

        let response = try ControlClient.send("check-in", to: socketPath, timeout: .seconds(5))

        XCTAssertTrue(response.hasPrefix("error: permission denied for uid \(getuid())"), response)
        XCTAssertEqual(calls.withLock { $0 }, 0)
    }

    func testDefaultPolicyAdmitsRootOwnUserAndGroupMembersOnly() {
        let policy = ControlServer.defaultAuthorization(serverUID: 990, socketGroup: 991)

        XCTAssertTrue(policy(PeerCredentials(pid: 1, uid: 0, gid: 0)))
        XCTAssertTrue(policy(PeerCredentials(pid: 1, uid: 990, gid: 5)))
        XCTAssertTrue(policy(PeerCredentials(pid: 1, uid: 1000, gid: 991)))
        XCTAssertTrue(policy(PeerCredentials(pid: 1, uid: 1000, gid: 1000, supplementaryGroups: [27, 991])))
        XCTAssertFalse(policy(PeerCredentials(pid: 1, uid: 1000, gid: 1000, supplementaryGroups: [27])))
    }

    func testStaleSocketIsReplaced() throws {
        mkdir("\(directory.path)/run", 0o750)
        try makeStaleSocket(at: socketPath)
        XCTAssertThrowsError(try ControlClient.send("status", to: socketPath, timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .staleSocket)
            XCTAssertEqual("\(error)", "lifesignald is not running: stale control socket at \(socketPath)")
        }

        let server = echoServer()
        try server.start()
        defer { server.stop() }

        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(5)), "echo: status")
    }

    func testSecondServerOnTheSamePathIsRefused() throws {
        let first = echoServer()
        try first.start()
        defer { first.stop() }
        let second = echoServer()

        XCTAssertThrowsError(try second.start()) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .alreadyRunning)
            XCTAssertEqual("\(error)", "lifesignald already running, socket \(socketPath)")
        }
        second.stop()  // a server that never started must not remove the live server's socket
        XCTAssertEqual(try ControlClient.send("still there?", to: socketPath, timeout: .seconds(5)), "echo: still there?")
    }

    func testPathThatIsNotASocketIsLeftAlone() throws {
        mkdir("\(directory.path)/run", 0o750)
        let file = open(socketPath, O_CREAT | O_WRONLY, 0o600)
        close(file)

        XCTAssertThrowsError(try echoServer().start()) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .invalidPath)
        }
        XCTAssertEqual(fileMode(socketPath).map { $0 & S_IFMT }, S_IFREG, "not deleted")
    }

    func testMissingSocketSaysTheDaemonIsNotRunning() {
        XCTAssertThrowsError(try ControlClient.send("status", to: socketPath, timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .notRunning)
            XCTAssertEqual("\(error)", "lifesignald is not running: no control socket at \(socketPath)")
        }
    }

    func testConnectErrorsBecomeActionableMessages() {
        let path = "/run/lifesignal/control.sock"
        XCTAssertEqual(
            ControlClient.connectFailure(EACCES, path: path, timeout: .seconds(5)).description,
            "permission denied on /run/lifesignal/control.sock: run as root or as a member of group 'lifesignal'"
        )
        XCTAssertEqual(ControlClient.connectFailure(ECONNREFUSED, path: path, timeout: .seconds(5)).code, .staleSocket)
        XCTAssertEqual(
            ControlClient.connectFailure(EAGAIN, path: path, timeout: .seconds(5)).description,
            "lifesignald did not answer within 5 s on /run/lifesignal/control.sock"
        )
    }

    func testStopRemovesTheSocketFile() throws {
        let server = echoServer()
        try server.start()
        XCTAssertNotNil(fileMode(socketPath))

        server.stop()
        server.stop()

        XCTAssertNil(fileMode(socketPath))
        XCTAssertThrowsError(try ControlClient.send("status", to: socketPath, timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .notRunning)
        }
    }

    func testManyConcurrentClientsEachGetTheirOwnAnswer() throws {
        let server = ControlServer(path: socketPath, maxConnections: 8) { request, _ in
            await Task.yield()
            return "echo: \(request)"
        }
        try server.start()
        defer { server.stop() }
        let path = socketPath
        let results = Mutex<[Int: Result<String, ControlSocketError>]>([:])

        onThreads(40) { index in
            let result = Result { () throws(ControlSocketError) -> String in
                try ControlClient.send("client \(index)", to: path, timeout: .seconds(20))
            }
            results.withLock { $0[index] = result }
        }

        let all = results.withLock { $0 }
        XCTAssertEqual(all.count, 40)
        for (index, result) in all {
            XCTAssertEqual(try result.get(), "echo: client \(index)")
        }
    }

    func testOverlongRequestIsRefused() throws {
        let server = echoServer(maxRequestBytes: 100)
        try server.start()
        defer { server.stop() }

        let response = try ControlClient.send(String(repeating: "x", count: 5000), to: socketPath, timeout: .seconds(5))

        XCTAssertEqual(response, "error: request longer than 100 bytes")
    }

    func testClientGivesUpWhenTheServerDoesNotAnswer() throws {
        let (gate, opener) = AsyncStream<Void>.makeStream()
        let server = ControlServer(path: socketPath) { _, _ in
            for await _ in gate {}
            return "too late"
        }
        try server.start()
        defer {
            opener.finish()
            server.stop()
        }

        XCTAssertThrowsError(try ControlClient.send("status", to: socketPath, timeout: .milliseconds(200))) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .timedOut)
            XCTAssertEqual("\(error)", "lifesignald did not answer within 200 ms on \(socketPath)")
        }
    }

    func testRequestWithANewlineIsRejectedBeforeSending() {
        XCTAssertThrowsError(try ControlClient.send("a\nb", to: socketPath, timeout: .seconds(5))) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .invalidRequest)
        }
    }

    func testClientThatNeverFinishesItsLineIsToldAndDisconnected() throws {
        let calls = Mutex(0)
        let server = ControlServer(path: socketPath, requestTimeout: .milliseconds(100)) { _, _ in
            calls.withLock { $0 += 1 }
            return "handled"
        }
        try server.start()
        defer { server.stop() }

        let answer = try sendIncompleteRequest("stat", to: socketPath)

        XCTAssertEqual(answer, "error: no complete request line within 100 ms\n")
        XCTAssertEqual(calls.withLock { $0 }, 0)
    }
}

final class GroupLookupTests: XCTestCase {
    func testGroupOfOurOwnProcessIsFoundByName() throws {
        guard let entry = getgrgid(getgid()) else { throw XCTSkip("our group has no name here") }
        let name = String(cString: entry.pointee.gr_name)

        XCTAssertEqual(ControlServer.groupID(named: name), getgid())
        XCTAssertNil(ControlServer.groupID(named: "no-such-group-lifesignal-test"))
    }
}
