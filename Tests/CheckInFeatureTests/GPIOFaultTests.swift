import CheckInFeature
import CheckInModels
import CheckInStoreClient
import XCTest

/// The GPIO chip going away is the device's fault until it is back; a press it interrupted is
/// not a check-in, and other faults are not cleared by its return.
final class GPIOFaultTests: FeatureTestCase {
    func testALostChipIsAFaultThatItsReturnClears() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.gpioLost("waiting for GPIO chip 'x': removed")) {
            $0.error = DeviceError(.gpioUnavailable, "waiting for GPIO chip 'x': removed")
        }
        XCTAssertEqual(store.state.indicator, .fault)
        store.send(.gpioRestored) { $0.error = nil }
        XCTAssertEqual(store.state.indicator, .neverCheckedIn)
        await stop(store)
    }

    func testAPressInterruptedByTheLostChipIsNeitherACheckInNorALongPress() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.gpioLost("gone")) {
            $0.error = DeviceError(.gpioUnavailable, "gone")
            $0.button = .released
        }
        await clock.advance(by: .seconds(10))  // past the long-press time: nothing may fire
        store.send(.gpioRestored) { $0.error = nil }
        store.send(.buttonReleased)  // a release from the new lines: no press was in progress
        XCTAssertEqual(fake.records, [])
        await stop(store)
    }

    func testTheChipsReturnLeavesAnotherFaultStanding() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        let full = StoreFailure(.full, "disk full")
        fake.failWrites(with: full)
        store.send(.gpioLost("gone")) { $0.error = DeviceError(.gpioUnavailable, "gone") }
        store.send(.checkInRequested(.cli)) { $0.isCheckingIn = true }
        await store.receive(.checkInResponse(.failure(full))) {
            $0.isCheckingIn = false
            $0.error = DeviceError(.checkInNotStored, "check-in NOT saved: disk full")
        }
        await store.receive(.delegate(.checkInFailed(full)))
        store.send(.gpioRestored)
        XCTAssertEqual(store.state.error?.kind, .checkInNotStored)
        await stop(store)
    }
}
