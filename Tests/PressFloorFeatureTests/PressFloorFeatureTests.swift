import CheckInModels
import CheckInStoreClient
import Clocks
import ComposableCore
import ConcurrencyExtras
import DeviceClock
import GPIOClient
import PressFloorFeature
import Synchronization
import TestSupport
import XCTest

/// The floor's press: a release checks in, the acknowledgement shows once the store has answered
/// and for 200 ms after the last answer; a press edge does nothing; a refusal shows nothing.
@MainActor
final class PressFloorFeatureTests: XCTestCase {
    // Effects and the test clock must interleave deterministically (see CheckInFeatureTests).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    nonisolated static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-29T08:00:00Z")!, uptime: .seconds(1000), bootID: "boot-a",
        wallClockSynchronized: true)
    nonisolated static let id = CheckInID(high: 1, low: 2)

    final class Recorded: Sendable {
        let checkIns = Mutex<[NewCheckIn]>([])
        let refusal = Mutex<StoreFailure?>(nil)
    }
    let recorded = Recorded()
    var clock: TestClock<Duration>!

    func makeStore() -> TestStore<PressFloorFeature> {
        clock = TestClock()
        let recorded = recorded
        let feature = PressFloorFeature(
            record: { new throws(StoreFailure) in
                if let refusal = recorded.refusal.withLock({ $0 }) { throw refusal }
                recorded.checkIns.withLock { $0.append(new) }
                return CheckInRecord(new)
            },
            clock: .driven(by: clock, startingAt: Self.start),
            makeID: { Self.id })
        return TestStore(initialState: PressFloorFeature.State(), reducer: feature)
    }

    /// The check-in made `offset` after the start, as the store gives it back.
    func stored(after offset: Duration = .zero) -> CheckInRecord {
        var at = Self.start
        at.wall = at.wall + offset
        at.uptime += offset
        return CheckInRecord(NewCheckIn(id: Self.id, at: at, source: .button))
    }

    func testAReleaseIsStoredThenAcknowledgedFor200Milliseconds() async {
        let store = makeStore()
        store.send(.button(ButtonEvent(.pressed, at: .seconds(1))))
        store.send(.button(ButtonEvent(.released, at: .seconds(2))))
        await store.receive(.stored(.success(stored()))) {
            $0.stored = 1
            $0.acknowledging = true
        }
        XCTAssertEqual(recorded.checkIns.withLock { $0 }, [NewCheckIn(id: Self.id, at: Self.start, source: .button)])
        await clock.advance(by: .milliseconds(199))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.acknowledgementEnded) { $0.acknowledging = false }
        await store.finish()
    }

    func testASecondCheckInDuringTheAcknowledgementShowsItFor200MillisecondsFromTheSecond() async {
        let store = makeStore()
        store.send(.button(ButtonEvent(.released, at: .seconds(2))))
        await store.receive(.stored(.success(stored()))) {
            $0.stored = 1
            $0.acknowledging = true
        }
        await clock.advance(by: .milliseconds(150))
        store.send(.button(ButtonEvent(.released, at: .seconds(3))))
        await store.receive(.stored(.success(stored(after: .milliseconds(150))))) { $0.stored = 2 }
        await clock.advance(by: .milliseconds(199))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.acknowledgementEnded) { $0.acknowledging = false }
        await store.finish()
    }

    func testARefusedCheckInShowsNoAcknowledgementAndSaysWhy() async {
        let store = makeStore()
        let full = StoreFailure(.full, "the disk holding the check-in store is full")
        recorded.refusal.withLock { $0 = full }
        store.send(.button(ButtonEvent(.released, at: .seconds(2))))
        await store.receive(.stored(.failure(full))) { $0.failure = full }
        XCTAssertEqual(recorded.checkIns.withLock { $0 }, [])
        await store.finish()
    }

    func testTheRunningFloorSetsTheLEDOnlyWhenTheAcknowledgementChanges() async {
        clock = TestClock()
        var written: [Bool] = []
        let store = PressFloorFeature.running(record: { new throws(StoreFailure) in CheckInRecord(new) },
                                              clock: .driven(by: clock, startingAt: Self.start),
                                              setLED: { written.append($0) })
        store.send(.stored(.success(stored())))
        store.send(.stored(.success(stored())))
        XCTAssertEqual(written, [true], "lit once, before the acknowledgement's timer runs")
        store.send(.acknowledgementEnded)
        store.send(.button(ButtonEvent(.pressed, at: .seconds(1))))
        XCTAssertEqual(written, [true, false])
        store.cancelAllEffects()
        await store.waitForEffects()
    }
}
