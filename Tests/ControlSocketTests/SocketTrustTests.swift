@testable import ControlSocket
import Glibc
import TestSupport
import XCTest

/// The control socket's directory and path as a hostile local user would prepare them: the daemon
/// refuses to put its socket where someone else could take it over, and the client refuses to
/// talk through a link or to a path that is not a socket.
final class SocketTrustTests: XCTestCase {
    private var directory: TemporaryDirectory!
    private var runDirectory: String { "\(directory.path)/run" }
    private var socketPath: String { "\(runDirectory)/control.sock" }

    override func setUpWithError() throws {
        directory = try TemporaryDirectory()
    }

    override func tearDown() {
        directory = nil
    }

    private func server(_ path: String? = nil) -> ControlServer {
        ControlServer(path: path ?? socketPath) { request, _ in "echo: \(request)" }
    }

    private func startFailure(_ server: ControlServer, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            try server.start()
            server.stop()
            XCTFail("the server started", file: file, line: line)
            return nil
        } catch {
            return error.description
        }
    }

    // MARK: The daemon's side

    func testADirectoryOthersCanWriteToOrSetgidIsRefused() throws {
        // What another user prepares in /tmp: a directory everyone may write to, setgid to their group.
        XCTAssertEqual(mkdir(runDirectory, 0o700), 0)
        XCTAssertEqual(chmod(runDirectory, 0o2777), 0)
        let message = try XCTUnwrap(startFailure(server()))
        XCTAssertEqual(message, "the control socket's directory \(runDirectory) has mode 2777: others could replace "
                       + "the socket or give it their group; it must be writable by its owner only (or sticky, as /tmp "
                       + "is) and not setgid (lifesignald creates it 0750): remove it (rm -r \(runDirectory)) and start "
                       + "lifesignald again, or chmod 0750 \(runDirectory) if it is yours")
        XCTAssertNil(fileMode(socketPath), "no socket was created")

        for mode: mode_t in [0o777, 0o770, 0o2750] {
            XCTAssertEqual(chmod(runDirectory, mode), 0)
            XCTAssertNotNil(startFailure(server()), "mode \(String(mode, radix: 8))")
        }
    }

    func testAStickyDirectoryLikeTmpIsUsed() throws {
        // Others may add entries to it but not remove or rename the server's socket.
        XCTAssertEqual(mkdir(runDirectory, 0o700), 0)
        XCTAssertEqual(chmod(runDirectory, 0o1777), 0)
        let server = server()
        try server.start()
        defer { server.stop() }
        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(5)), "echo: status")
    }

    func testADirectoryOwnedBySomeoneElseIsRefused() throws {
        guard geteuid() == 0 else { throw XCTSkip("needs root to give the directory to another user") }
        XCTAssertEqual(mkdir(runDirectory, 0o750), 0)
        XCTAssertEqual(chown(runDirectory, 65534, 65534), 0)
        let message = try XCTUnwrap(startFailure(server()))
        XCTAssertTrue(message.hasPrefix("the control socket's directory \(runDirectory) belongs to uid 65534"), message)
        XCTAssertTrue(message.contains("as which lifesignald runs: someone else created it"), message)
        XCTAssertNil(fileMode(socketPath), "no socket was created")
    }

    func testASymlinkedDirectoryIsRefused() throws {
        let elsewhere = "\(directory.path)/elsewhere"
        XCTAssertEqual(mkdir(elsewhere, 0o750), 0)
        XCTAssertEqual(symlink(elsewhere, runDirectory), 0)
        let message = try XCTUnwrap(startFailure(server()))
        XCTAssertTrue(message.hasPrefix("the control socket's directory \(runDirectory) is a symbolic link"), message)
        XCTAssertNil(fileMode("\(elsewhere)/control.sock"), "nothing was created through the link")
    }

    func testADirectoryItCreatesHasExactlyTheModeItSets() throws {
        let previous = umask(0o002)
        defer { umask(previous) }
        let server = server()
        try server.start()
        defer { server.stop() }
        XCTAssertEqual(fileMode(runDirectory).map { $0 & 0o7777 }, 0o750)
        XCTAssertEqual(fileMode(socketPath).map { $0 & 0o7777 }, 0o660)
    }

    func testAnExistingPrivateDirectoryOfItsOwnIsUsed() throws {
        XCTAssertEqual(mkdir(runDirectory, 0o700), 0)
        let server = server()
        try server.start()
        defer { server.stop() }
        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(5)), "echo: status")
        XCTAssertEqual(fileMode(runDirectory).map { $0 & 0o7777 }, 0o700, "an existing directory's mode is left alone")
    }

    // MARK: The client's side

    func testTheClientDoesNotFollowASymlinkToTheSocket() throws {
        let server = server()
        try server.start()
        defer { server.stop() }
        let link = "\(directory.path)/link.sock"
        XCTAssertEqual(symlink(socketPath, link), 0)

        XCTAssertThrowsError(try ControlClient.send("check-in", to: link, timeout: .seconds(5))) { error in
            XCTAssertEqual("\(error)", "\(link) is a symbolic link: lifesignalctl does not follow links to the control "
                           + "socket (one could lead to a fake daemon); give the socket's own path")
        }
    }

    func testTheClientDoesNotGoThroughASymlinkedDirectory() throws {
        let server = server()
        try server.start()
        defer { server.stop() }
        let link = "\(directory.path)/linked-run"
        XCTAssertEqual(symlink(runDirectory, link), 0)

        XCTAssertThrowsError(try ControlClient.send("check-in", to: "\(link)/control.sock", timeout: .seconds(5))) { error in
            XCTAssertEqual("\(error)", "the control socket's directory \(link) is a symbolic link: lifesignalctl does "
                           + "not follow links to the control socket (one could lead to a fake daemon); give the "
                           + "socket's own path")
        }
    }

    func testAPathThatIsNotASocketIsNamedAsSuch() throws {
        XCTAssertThrowsError(try ControlClient.send("status", to: "/etc/passwd", timeout: .seconds(5))) { error in
            XCTAssertEqual("\(error)", "/etc/passwd is not a socket but a regular file: give the path of lifesignald's "
                           + "control socket (lifesignalctl --socket PATH)")
        }
        XCTAssertThrowsError(try ControlClient.send("status", to: directory.path, timeout: .seconds(5))) { error in
            XCTAssertEqual("\(error)", "\(directory.path) is not a socket but a directory: give the path of lifesignald's "
                           + "control socket (lifesignalctl --socket PATH)")
        }
    }

    func testTheClientRefusesAServerRunAsAUserItDoesNotBelieve() throws {
        guard geteuid() != 0 else {
            throw XCTSkip("root is always believed; FakeServerEndToEndTests runs a server as another user")
        }
        let server = server()
        try server.start()
        defer { server.stop() }
        let nobodyButRoot = ServerTrust(users: [], trustsPrivateDirectoryOwner: false)

        XCTAssertThrowsError(try ControlClient.send("check-in", to: socketPath, timeout: .seconds(5), trusting: nobodyButRoot)) { error in
            XCTAssertEqual((error as? ControlSocketError)?.code, .untrustedServer)
            XCTAssertTrue("\(error)".contains("runs as uid \(geteuid())"), "\(error)")
        }
        XCTAssertEqual(try ControlClient.send("status", to: socketPath, timeout: .seconds(5)), "echo: status",
                       "the same server is believed by its own user")
    }

    func testADirectorysOwnerIsTrustedOnlyWhereNobodyElseCouldHaveMadeIt() throws {
        XCTAssertEqual(chmod(directory.path, 0o755), 0)
        XCTAssertEqual(mkdir(runDirectory, 0o750), 0)
        XCTAssertEqual(chmod(runDirectory, 0o750), 0)
        XCTAssertEqual(ServerTrust.trustedOwner(ofDirectory: runDirectory), geteuid())

        // In a folder everyone may write to (like /tmp), anyone could have made it first.
        XCTAssertEqual(chmod(directory.path, 0o1777), 0)
        XCTAssertNil(ServerTrust.trustedOwner(ofDirectory: runDirectory))
        XCTAssertEqual(chmod(directory.path, 0o755), 0)

        // A directory others may write to holds sockets anyone could have put there.
        XCTAssertEqual(chmod(runDirectory, 0o770), 0)
        XCTAssertNil(ServerTrust.trustedOwner(ofDirectory: runDirectory))
        XCTAssertEqual(chmod(runDirectory, 0o750), 0)

        let link = "\(directory.path)/link"
        XCTAssertEqual(symlink(runDirectory, link), 0)
        XCTAssertNil(ServerTrust.trustedOwner(ofDirectory: link))
    }

    func testRootTheUserAndTheServiceUserAreBelieved() throws {
        let trust = ServerTrust.sameUser(orService: "root")
        XCTAssertTrue(trust.allows(0, directoryOwner: nil))
        XCTAssertTrue(trust.allows(geteuid(), directoryOwner: nil))
        XCTAssertEqual(trust.serviceUser, ServerTrust.ServiceUser(name: "root", uid: 0))
        XCTAssertNil(ServerTrust.sameUser(orService: "no-such-user-lifesignal-test").serviceUser)

        let stranger: UInt32 = 4_000_000
        XCTAssertFalse(ServerTrust.sameUser.allows(stranger, directoryOwner: nil))
        XCTAssertFalse(ServerTrust.sameUser.allows(stranger, directoryOwner: stranger - 1))
        XCTAssertTrue(ServerTrust.sameUser.allows(stranger, directoryOwner: stranger), "the owner of a private directory")
        XCTAssertTrue(ServerTrust.anyone.allows(stranger, directoryOwner: nil))
    }
}
