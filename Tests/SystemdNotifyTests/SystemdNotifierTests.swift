import Glibc
import LinuxIO
import SystemdNotify
import XCTest

final class SystemdNotifierTests: XCTestCase {
    func testEachSendIsOneDatagramOfAssignmentsOnAPathSocket() throws {
        let receiver = try NotifyReceiver.inTemporaryDirectory()
        let notifier = try XCTUnwrap(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": receiver.socketName]))

        try notifier.send([.ready, .status("checked in · deadline in 23 h · upload queue 0")])
        try notifier.send(.watchdog)
        try notifier.send(.stopping)

        XCTAssertEqual(try receiver.receive(), "READY=1\nSTATUS=checked in · deadline in 23 h · upload queue 0")
        XCTAssertEqual(try receiver.receive(), "WATCHDOG=1")
        XCTAssertEqual(try receiver.receive(), "STOPPING=1")
    }

    func testAbstractSocketNamesStartWithAnAt() throws {
        let receiver = try NotifyReceiver.abstract()
        let notifier = try XCTUnwrap(SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": receiver.socketName]))
        try notifier.send(.ready)
        XCTAssertEqual(try receiver.receive(), "READY=1")
    }

    func testAStatusCannotSmuggleAnotherAssignmentOnANewLine() throws {
        let receiver = try NotifyReceiver.inTemporaryDirectory()
        let notifier = try SystemdNotifier(socketName: receiver.socketName)
        try notifier.send(.status("store failed\nREADY=1\r\nSTOPPING=1"))
        let datagram = try receiver.receive()
        XCTAssertEqual(datagram.split(separator: "\n").count, 1, datagram)
        XCTAssertTrue(datagram.hasPrefix("STATUS=store failed"), datagram)
    }

    func testNoNotifySocketMeansNoNotifier() throws {
        XCTAssertNil(try SystemdNotifier.fromEnvironment([:]))
        XCTAssertNil(try SystemdNotifier.fromEnvironment(["NOTIFY_SOCKET": ""]))
    }

    func testUnusableSocketNamesAreRefusedWithTheName() {
        for name in ["relative/path", "@", "/" + String(repeating: "x", count: 200)] {
            XCTAssertThrowsError(try SystemdNotifier(socketName: name), name) { error in
                XCTAssertEqual((error as? SystemError)?.target, name)
            }
        }
    }

    func testSendingToAMissingSocketThrowsWithErrnoAndTarget() throws {
        let receiver = try NotifyReceiver.inTemporaryDirectory()
        let missing = receiver.socketName + "-gone"
        let notifier = try SystemdNotifier(socketName: missing)
        XCTAssertThrowsError(try notifier.send(.ready)) { error in
            let systemError = error as? SystemError
            XCTAssertEqual(systemError?.errno, ENOENT)
            XCTAssertEqual(systemError?.target, missing)
        }
    }

    func testWatchdogPingsAtHalfTheIntervalAndOnlyForTheNamedProcess() {
        XCTAssertEqual(WatchdogInterval.pingInterval(environment: ["WATCHDOG_USEC": "30000000"], processID: 42), .seconds(15))
        XCTAssertEqual(WatchdogInterval.pingInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "42"], processID: 42), .seconds(15))
        XCTAssertNil(WatchdogInterval.pingInterval(environment: ["WATCHDOG_USEC": "30000000", "WATCHDOG_PID": "43"], processID: 42))
        XCTAssertNil(WatchdogInterval.pingInterval(environment: [:], processID: 42))
        XCTAssertNil(WatchdogInterval.pingInterval(environment: ["WATCHDOG_USEC": "0"], processID: 42))
        XCTAssertNil(WatchdogInterval.pingInterval(environment: ["WATCHDOG_USEC": "soon"], processID: 42))
    }
}
