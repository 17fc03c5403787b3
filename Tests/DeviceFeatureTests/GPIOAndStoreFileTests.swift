import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceFeature
import GPIOClient
import GPIOFeature
import StoreHealthFeature
import TestSupport
import XCTest

/// The GPIO chip's absence and a store file deleted under the running device are faults with their
/// own clearing rules: the chip's return, the store back at its path.
final class GPIOAndStoreFileTests: DeviceTestCase {
    let removed = GPIOError(operation: "read GPIO events", target: chip, reason: "the chip was removed")
    let full = StoreFailure(.full, "disk full")

    func testTheChipsReturnClearsItsFaultButNotAStoreFaultStandingBesideIt() async {
        scripts.chipFailures.withLock { $0 = [nil, removed, nil] }
        let store = makeStore()
        await start(store)
        store.send(.gpio(.start))
        await store.receive(.gpio(.connected)) { $0.gpio.connection = .connected }

        // The chip goes away: a fault, and a press in progress is no press.
        store.send(.gpio(.eventsEnded(removed))) {
            $0.gpio.connection = .waiting(self.removed)
            $0.gpio.shownFailure = self.removed
        }
        await store.receive(.gpio(.delegate(.linesLost)))
        await store.receive(.checkIn(.buttonLost))
        await store.receive(.gpio(.connectFailed(removed))) {
            $0.gpio.consecutiveFailures = 1
            $0.gpio.retryScheduled = true
        }
        XCTAssertEqual(store.state.indicator, .fault)
        XCTAssertEqual(store.state.conditions.map(\.kind), [.gpioUnavailable])

        // Meanwhile a write fails on a full disk: two conditions.
        checkIns.failWrites(with: full)
        store.send(.checkIn(.checkInRequested(.cli))) { $0.checkIn.isCheckingIn = true }
        await receiveFirstRefusedWrite(store, full)
        XCTAssertEqual(store.state.conditions.map(\.kind), [.storeCannotWrite, .gpioUnavailable])

        // The chip is back: its condition goes, the store's stays, the LEDs still say fault.
        scripts.probes.withLock { $0 = [.failure(full)] }
        await testClock.advance(by: .seconds(1))
        await store.receive(.gpio(.retryDue)) { $0.gpio.retryScheduled = false }
        await store.receive(.store(.retryDue)) {
            $0.store.nextAttempt = nil
            $0.store.isProbing = true
        }
        await store.receive(.gpio(.connected)) {
            $0.gpio.connection = .connected
            $0.gpio.shownFailure = nil
            $0.gpio.consecutiveFailures = 0
        }
        await store.receive(.gpio(.delegate(.linesRestored)))
        await store.receive(.store(.probeResponse(.failure(full)))) {
            $0.store.isProbing = false
            $0.store.consecutiveFailures = 2
            $0.store.nextAttempt = Self.start.wall + .seconds(3)
        }
        XCTAssertEqual(store.state.conditions.map(\.kind), [.storeCannotWrite])
        XCTAssertEqual(store.state.indicator, .fault)
        store.send(.gpio(.stop)) {
            $0.gpio.connection = .idle
        }
        await stop(store)
    }

    func testAStoreFileDeletedWhileRunningRefusesTheCheckInThenIsPutBackAndEverythingReloads() async {
        let record = CheckInRecord(NewCheckIn(id: id(90), at: Self.start, source: .button))
        let store = makeStore()
        await start(store)
        let moved = StoreFailure(.moved, "/var/lib/lifesignal/lifesignal.sqlite was deleted while the device ran")
        checkIns.failWrites(with: moved)
        let report = StoreRecoveryReport(summary: "x was missing; created it afresh; rows copied from the open handle: check_ins 3", rowsRecovered: 3)
        scripts.recoveries.withLock { $0 = [.success(report)] }

        store.send(.checkIn(.checkInRequested(.button))) { $0.checkIn.isCheckingIn = true }
        await store.receive(.checkIn(.checkInResponse(.failure(moved)))) { $0.checkIn.isCheckingIn = false }
        XCTAssertNotEqual(store.state.indicator, .acknowledged, "nothing is acknowledged that is not on disk")
        await store.receive(.checkIn(.delegate(.checkInFailed(moved))))
        await store.receive(.store(.operationFailed(moved))) {
            $0.store.problem = StoreProblem(moved, since: Self.start.wall)
            $0.store.needsRecovery = true
            $0.store.isRecovering = true
        }
        XCTAssertEqual(store.state.indicator, .fault)
        XCTAssertEqual(store.state.conditions.map(\.kind), [.storeFileMoved])

        // The store is back at its path (with a row the old handle held): reloaded from it.
        checkIns.failWrites(with: nil)
        checkIns.contents.withLock { $0.records = [record] }
        await store.receive(.store(.recoverResponse(.success(report)))) {
            $0.store.isRecovering = false
            $0.store.needsRecovery = false
            $0.store.problem = nil
        }
        await store.receive(.store(.delegate(.recovered(report)))) {
            $0.messages = [DeviceMessage(.storeRecovered, "the store's files were deleted or replaced while the device ran: "
                                         + report.summary, at: Self.start.wall)]
        }
        await store.receive(.checkIn(.loadCheckInSettings))
        await store.receive(.checkIn(.loadCheckInHistory)) { $0.checkIn.isLoadingHistory = true }
        await store.receive(.checkIn(.alert(.loadPending)))
        await store.receive(.notifications(.loadNotifications)) { $0.notifications.isLoading = true }
        await store.receive(.store(.delegate(.writable)))
        await store.receive(.checkIn(.storeWritable))
        await store.receive(.notifications(.notificationsResponse(.success(
            NotificationSnapshot(notifications: [], preferences: NotificationPreferences(), pendingChangeCount: 0))))) {
            $0.notifications.isLoading = false
        }
        await store.receive(.storedPingsResponse(.success([])))
        await store.receive(.checkIn(.checkInSettingsResponse(.success(checkIns.settings))))
        await store.receive(.checkIn(.checkInHistoryResponse(.success([record])))) {
            $0.checkIn.isLoadingHistory = false
            $0.checkIn.history = [record]
            $0.checkIn.phase = .checkedIn(Countdown(deadline: Self.start.wall + .seconds(86_400), remaining: .seconds(86_400)))
        }
        await store.receive(.checkIn(.alert(.pendingResponse(.success([])))))
        XCTAssertEqual(store.state.conditions, [])
        XCTAssertEqual(store.state.indicator, .checkedIn)
        await stop(store)
    }
}
