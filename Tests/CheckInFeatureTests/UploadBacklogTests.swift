import CheckInFeature
import CheckInModels
import TestSupport
import XCTest

/// Check-ins not uploaded for longer than `stale_after` mark the LEDs: decided by the feature on
/// monotonic time, with one wake-up, never hiding overdue or a fault.
final class UploadBacklogTests: FeatureTestCase {
    func makeBacklogStore(records: [CheckInRecord], staleAfter: Duration? = FeatureTestCase.hour) -> TestStore<CheckInFeature> {
        makeStore(records: records) { $0.uploadBacklog = UploadBacklog(staleAfter: staleAfter) }
    }

    func testACheckInWaitingLongerThanStaleAfterMarksTheCheckedInPatternUntilItIsUploaded() async {
        let last = Self.record(ago: .seconds(600))
        let store = makeBacklogStore(records: [last])
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 24 - .seconds(600))))

        store.send(.uploadBacklogChanged(oldestPendingSince: last.at)) { $0.uploadBacklog.oldestPendingSince = last.at }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        await clock.advance(by: .seconds(3000) - .milliseconds(1))
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn, "not before an hour has passed")
        await clock.advance(by: .milliseconds(1))
        await store.receive(.uploadBacklogWaitReached) { $0.uploadBacklog.isStale = true }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedInNotUploaded)

        // Uploaded at last: the mark goes, and no wake-up is left.
        store.send(.uploadBacklogChanged(oldestPendingSince: nil)) {
            $0.uploadBacklog.oldestPendingSince = nil
            $0.uploadBacklog.isStale = false
        }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        await stop(store)
    }

    func testTheMarkNeverHidesOverdueOrAFaultAndMarksTheReminder() async {
        let last = Self.record(ago: Self.hour * 23)
        let store = makeBacklogStore(records: [last])
        await start(store, records: [last], expectPhase: .reminder(countdown(remaining: Self.hour)))
        store.send(.uploadBacklogChanged(oldestPendingSince: last.at)) {
            $0.uploadBacklog.oldestPendingSince = last.at
            $0.uploadBacklog.isStale = true
        }
        XCTAssertEqual(store.state.indicator(fault: false), .reminderNotUploaded)
        XCTAssertEqual(store.state.indicator(fault: true), .fault)

        await clock.advance(by: Self.hour)
        await store.receive(.phaseBoundaryReached) {
            $0.phase = .overdue(self.countdown(remaining: .zero, now: Self.hour))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .overdue)
        await stop(store)
    }

    func testWithoutAnUplinkNothingIsEverLate() async {
        let last = Self.record(ago: Self.hour * 3)
        let store = makeBacklogStore(records: [last], staleAfter: nil)
        await start(store, records: [last], expectPhase: .checkedIn(countdown(remaining: Self.hour * 21)))
        store.send(.uploadBacklogChanged(oldestPendingSince: last.at)) { $0.uploadBacklog.oldestPendingSince = last.at }
        await clock.advance(by: Self.hour * 10)
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        await stop(store)
    }

    func testAcrossARebootWithAnUntrustedClockOnlyTheCertainWaitCounts() async {
        // Made on an earlier boot, wall clock unsynchronised: at least this boot's uptime (1000 s)
        // has passed, however far the wall clocks claim.
        var last = Self.record(ago: Self.hour * 5, bootID: "boot-before")
        last.at.wallClockSynchronized = false
        let store = makeBacklogStore(records: [last])
        await start(store, records: [last], expectPhase: .reminder(countdown(remaining: Self.hour * 24 - .seconds(1000))),
                    elapsedTimeUnknown: true)
        store.send(.uploadBacklogChanged(oldestPendingSince: last.at)) { $0.uploadBacklog.oldestPendingSince = last.at }
        XCTAssertEqual(store.state.indicator(fault: false), .reminder)
        await clock.advance(by: .seconds(2600))
        await store.receive(.uploadBacklogWaitReached) { $0.uploadBacklog.isStale = true }
        XCTAssertEqual(store.state.indicator(fault: false), .reminderNotUploaded)
        await stop(store)
    }
}
