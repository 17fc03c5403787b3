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
