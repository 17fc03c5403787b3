import CheckInFeature
import CheckInModels
import CheckInStoreClient
import XCTest

/// A press the lost GPIO chip interrupted is neither a check-in nor a long press (the fault itself
/// is the device feature's: DeviceFeatureTests).
final class ButtonLostTests: FeatureTestCase {
    func testAPressInterruptedByTheLostChipIsNeitherACheckInNorALongPress() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.buttonLost) {
            $0.button = .released
        }
        await clock.advance(by: .seconds(10))  // past the long-press time: nothing may fire
        store.send(.buttonReleased)  // a release from the new lines: no press was in progress
        XCTAssertEqual(fake.records, [])
        await stop(store)
    }
}
