import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceFeature
import GPIOClient
import GPIOFeature
import StoreHealthFeature
import TestSupport
import XCTest

/// A person's button edges are the check-in's in the step they arrive in: no action relays them,
/// so a release's write starts with the edge itself.
final class ButtonRoutingTests: DeviceTestCase {
    let full = StoreFailure(.full, "disk full")

    func testAReleaseStartsTheWriteInItsOwnStepAndAFailedWriteIsAStoreFault() async {
        let store = makeStore()
        await start(store)
        store.send(.gpio(.start))
        await store.receive(.gpio(.connected)) { $0.gpio.connection = .connected }

        checkIns.failWrites(with: full)
        let pressed = ButtonEvent(.pressed, at: .seconds(1))
        let released = ButtonEvent(.released, at: .seconds(2))
        scripts.buttons.withLock { _ = $0?.yield(pressed) }
        await store.receive(.gpio(.buttonChanged(pressed))) { $0.checkIn.button = .held }
        scripts.buttons.withLock { _ = $0?.yield(released) }
        await store.receive(.gpio(.buttonChanged(released))) {
            $0.checkIn.button = .released
            $0.checkIn.isCheckingIn = true
        }
        await receiveFirstRefusedWrite(store, full)
        XCTAssertEqual(store.state.indicator, .fault, "a press that was not kept never shows OK")

        store.send(.gpio(.stop)) { $0.gpio.connection = .idle }
        await stop(store)
    }

    func testTheLogOfAPressStillSaysWhatTheCheckInDid() {
        var before = makeStore().state
        before.checkIn.button = .held
        var after = before
        after.checkIn.button = .released
        after.checkIn.phase = .checkedIn(Countdown(deadline: Self.start.wall + .seconds(600), remaining: .seconds(600)))
        let released = DeviceFeature.Action.gpio(.buttonChanged(ButtonEvent(.released, at: .seconds(2))))
        let lines = DeviceFeature.log(released, before: before, after: after).map(\.message)
        XCTAssertTrue(lines.contains("phase checked_in"), "\(lines)")
    }
}
