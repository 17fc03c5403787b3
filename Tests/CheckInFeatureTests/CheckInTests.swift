import CheckInFeature
import CheckInModels
import CheckInStoreClient
import XCTest

/// A press becomes a durable check-in, acknowledged only once stored.
final class CheckInTests: FeatureTestCase {
    func expectedRecord(_ n: UInt64, at elapsed: Duration, source: CheckInSource = .button) -> CheckInRecord {
        CheckInRecord(id: id(n), at: Self.start.advanced(by: elapsed), source: source)
    }

    func testShortPressChecksInAndAcknowledgesOnlyAfterTheWrite() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)

        store.send(.buttonPressed) { $0.button = .held }
        await clock.advance(by: .milliseconds(200))
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
        }
        XCTAssertNotEqual(store.state.indicator(fault: false), .acknowledged, "no acknowledgement before the write finished")

        let record = expectedRecord(1, at: .milliseconds(200))
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24, now: .milliseconds(200)))
        }
        XCTAssertEqual(store.state.indicator(fault: false), .acknowledged)
        await store.receive(.delegate(.checkInStored(record)))
        XCTAssertEqual(fake.records, [record])

        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        await stop(store)
    }

    func testRepeatedPressEventsWhileHeldAreOnePress() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.buttonPressed)
        store.send(.buttonPressed)
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
        }
        store.send(.buttonReleased)  // a stray release while up is nothing
        let record = expectedRecord(1, at: .zero)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(record)))
        XCTAssertEqual(fake.writeAttempts, 1)
        await stop(store)
    }

    func testPressDuringPendingWriteIsNotASecondCheckIn() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        fake.holdWrites()

        store.send(.checkInRequested(.cli)) { $0.isCheckingIn = true }
        await Task.megaYield()
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.buttonReleased) { $0.button = .released }  // no second check-in: a write is in progress
        XCTAssertNotEqual(store.state.indicator(fault: false), .acknowledged)

        XCTAssertTrue(fake.releaseHeldWrite(), "the first write should be waiting")
        let record = expectedRecord(1, at: .zero, source: .cli)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(record)))
        XCTAssertEqual(fake.writeAttempts, 1)
        XCTAssertEqual(fake.records.count, 1)
        await stop(store)
    }

    func testFailedWriteShowsTheFaultAndNeverAcknowledges() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        let full = StoreFailure(.full, "disk full")
        fake.failWrites(with: full)

        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        await store.receive(.checkInResponse(.failure(full))) {
            $0.isCheckingIn = false
        }
        XCTAssertNotEqual(store.state.indicator(fault: false), .acknowledged)
        await store.receive(.delegate(.checkInFailed(full)))
        XCTAssertEqual(fake.records, [])

        // Space freed: the next press is stored, acknowledged, and the fault clears.
        fake.failWrites(with: nil)
        await clock.advance(by: .seconds(5))
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = expectedRecord(2, at: .seconds(5))
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24, now: .seconds(5)))
        }
        await store.receive(.delegate(.checkInStored(record)))
        XCTAssertEqual(store.state.indicator(fault: false), .acknowledged)
        await stop(store)
    }

    func testFailureDuringAnAcknowledgementReplacesItWithTheFault() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        let record = expectedRecord(1, at: .zero)
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(record)))

        let readOnly = StoreFailure(.readOnly, "read-only file system")
        fake.failWrites(with: readOnly)
        store.send(.checkInRequested(.button)) { $0.isCheckingIn = true }
        await store.receive(.checkInResponse(.failure(readOnly))) {
            $0.isCheckingIn = false
            $0.feedback = nil
        }
        await store.receive(.delegate(.checkInFailed(readOnly)))
        XCTAssertNotEqual(store.state.indicator(fault: false), .acknowledged)
        // The cancelled acknowledgement timer must not deliver anything later.
        await clock.advance(by: .seconds(10))
        await stop(store)
    }

    func testLongPressIsNotACheckIn() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.buttonPressed) { $0.button = .held }
        await clock.advance(by: .seconds(3))
        await store.receive(.longPressThresholdReached) {
            $0.button = .longPressed
            $0.feedback = .longPress
        }
        XCTAssertEqual(store.state.indicator(fault: false), .longPress)
        await store.receive(.delegate(.longPressed))
        await clock.advance(by: .seconds(1))
        store.send(.buttonReleased) { $0.button = .released }
        await clock.advance(by: .milliseconds(500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        XCTAssertEqual(fake.writeAttempts, 0)
        await stop(store)
    }

    func testPressJustShorterThanLongPressIsACheckIn() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.buttonPressed) { $0.button = .held }
        await clock.advance(by: .milliseconds(2999))
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
        }
        let record = expectedRecord(1, at: .milliseconds(2999))
        await store.receive(.checkInResponse(.success(record))) {
            $0.isCheckingIn = false
            $0.history = [record]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24, now: .milliseconds(2999)))
        }
        await store.receive(.delegate(.checkInStored(record)))
        await clock.advance(by: .seconds(5))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }
}
