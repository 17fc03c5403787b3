import ControlSocket
import Glibc
import LinuxIO
import TestSupport
import XCTest

/// An idle daemon must not wake up: the control socket's loop sleeps in poll without a timeout.
final class IdleWakeupTests: XCTestCase {
    func testIdleServerThreadDoesNotWake() async throws {
        let directory = try TemporaryDirectory()
        let path = "\(directory.path)/control.sock"
        let server = ControlServer(path: path) { request, _ in request }
        try server.start()
        defer { server.stop() }
        XCTAssertEqual(try ControlClient.send("warm up", to: path, timeout: .seconds(5)), "warm up")
        try await waitUntilAsleepInPoll(threadNamed: "control-socket")  // the connection's last steps are done

        let before = try switchesOfThread(named: "control-socket")
        usleep(1_500_000)  // a 1 Hz wake-up would show at least once
        let after = try switchesOfThread(named: "control-socket")

        XCTAssertEqual(after, before, "the idle control-socket thread woke up")
    }
}

/// The named threads' context switches (LinuxIO), failing the test if there is no such thread.
private func switchesOfThread(named name: String) throws -> Int {
    guard let count = LinuxIO.contextSwitches(ofThreadsNamed: name) else {
        XCTFail("no thread named \(name) (or no /proc here)")
        return -1
    }
    return count
}
