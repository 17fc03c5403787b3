import LinuxIO
import Foundation
import Synchronization
import TestSupport
import XCTest

/// The monitor on the real kernel. Setting the machine's clock would disturb everything else on
/// it, so steps are not provoked here; the synchronisation change and the thread's life are.
final class WallClockMonitorTests: XCTestCase {
    func testFirstSynchronisationIsReportedOnceAndStopEndsTheThread() throws {
        let synchronized = Atomic<Bool>(false)
        let changes = Atomic<Int>(0)
        let monitor = try WallClockMonitor.start(
            synchronization: WallClockSynchronization { synchronized.load(ordering: .sequentiallyConsistent) },
            unsynchronizedCheck: .milliseconds(10),
            onChange: { changes.add(1, ordering: .sequentiallyConsistent) }
        )
        // Unsynchronised and unchanged: nothing to report, however often it looks.
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(changes.load(ordering: .sequentiallyConsistent), 0)

        synchronized.store(true, ordering: .sequentiallyConsistent)
        try waitUntilBlocking("the synchronisation is reported") { changes.load(ordering: .sequentiallyConsistent) > 0 }
        XCTAssertEqual(changes.load(ordering: .sequentiallyConsistent), 1, "the first synchronisation is a change")
        // Synchronised: the thread now waits without a timeout, so no further reports.
        Thread.sleep(forTimeInterval: 0.1)
        XCTAssertEqual(changes.load(ordering: .sequentiallyConsistent), 1)
        monitor.stop()
        monitor.stop()  // idempotent
    }
}

extension WallClockMonitorTests {
    /// systemd-timesyncd's flag appearing is seen at once, however long the next look is away.
    func testAFlagFileAppearingInTheWatchedDirectoryIsSeenWithoutWaitingForTheNextLook() throws {
        let directory = try TemporaryDirectory(prefix: "lifesignal-timesync")
        let flag = directory.path + "/synchronized"
        let changes = Atomic<Int>(0)
        let monitor = try WallClockMonitor.start(
            synchronization: WallClockSynchronization(flagDirectory: directory.path) { access(flag, F_OK) == 0 },
            unsynchronizedCheck: .seconds(3600),
            onChange: { changes.add(1, ordering: .sequentiallyConsistent) }
        )
        defer { monitor.stop() }
        XCTAssertTrue(FileManager.default.createFile(atPath: flag, contents: nil))
        try waitUntilBlocking("the flag file is noticed") { changes.load(ordering: .sequentiallyConsistent) == 1 }
    }

    /// A clock that stays unsynchronised is looked at ever less often: after 1 min, then doubling
    /// up to about an hour, so a device without network does not wake every minute for years.
    func testLooksAtAnUnsynchronisedClockSlowDownToAboutAnHour() {
        let intervals = (0..<9).map { WallClockMonitor.checkInterval(afterQuietChecks: $0) }
        XCTAssertEqual(intervals, [60, 120, 240, 480, 960, 1920, 3840, 3840, 3840].map { Duration.seconds($0) })
    }
}
