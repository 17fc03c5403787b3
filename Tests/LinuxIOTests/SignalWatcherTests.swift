import Glibc
import LinuxIO
import Synchronization
import TestSupport
import XCTest

/// Real signals to this test process (SIGUSR1/SIGUSR2, process-directed as systemd's SIGTERM is).
final class SignalWatcherTests: XCTestCase {
    func testASignalToTheProcessReachesTheWatcherByNumber() throws {
        let received = Mutex<[Int32]>([])
        let watcher = try SignalWatcher.start([SIGUSR1, SIGUSR2]) { signal in received.withLock { $0.append(signal) } }
        defer { watcher.stop() }
        kill(getpid(), SIGUSR2)
        try waitUntilBlocking("the watcher has seen SIGUSR2") { received.withLock { $0 } == [SIGUSR2] }
        kill(getpid(), SIGUSR1)
        try waitUntilBlocking("the watcher has seen SIGUSR1") { received.withLock { $0 } == [SIGUSR2, SIGUSR1] }
    }

    func testStoppingPutsBackWhatTheSignalDidBefore() throws {
        var ignore = sigaction()
        ignore.__sigaction_handler.sa_handler = SIG_IGN
        var before = sigaction()
        XCTAssertEqual(sigaction(SIGUSR2, &ignore, &before), 0)
        defer { _ = sigaction(SIGUSR2, &before, nil) }

        let watcher = try SignalWatcher.start([SIGUSR2]) { _ in }
        XCTAssertFalse(isIgnored(SIGUSR2), "the watcher's handler is installed")
        watcher.stop()
        XCTAssertTrue(isIgnored(SIGUSR2), "SIG_IGN again after stop")
        watcher.stop()  // idempotent
        XCTAssertTrue(isIgnored(SIGUSR2))
    }

    func testOnlyOneWatcherAtATimeAndANewOneAfterStop() throws {
        let first = try SignalWatcher.start([SIGUSR1]) { _ in }
        XCTAssertThrowsError(try SignalWatcher.start([SIGUSR1]) { _ in }) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EBUSY)
            XCTAssertTrue("\(error)".contains("SIGUSR1 (another signal watcher is active)"), "\(error)")
        }
        first.stop()

        let received = Mutex(0)
        let second = try SignalWatcher.start([SIGUSR1]) { _ in received.withLock { $0 += 1 } }
        defer { second.stop() }
        kill(getpid(), SIGUSR1)
        try waitUntilBlocking("the new watcher has seen SIGUSR1") { received.withLock { $0 } == 1 }
    }

    func testSignalNamesAreThePeoplesNames() {
        XCTAssertEqual(signalName(SIGTERM), "SIGTERM")
        XCTAssertEqual(signalName(SIGINT), "SIGINT")
        XCTAssertEqual(signalName(64), "signal 64")
    }

    private func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        _ = sigaction(signal, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
