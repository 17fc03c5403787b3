import CheckInFeature
import CheckInModels
import LEDLanguage
import XCTest

/// Identify (Home Assistant's button, over MQTT): the LEDs show the identify pattern for a few
/// seconds, over the phase and a fault but never over a press's own feedback; a press during it
/// checks in as always.
final class IdentifyTests: FeatureTestCase {
    func testIdentifyShowsForItsDurationOverThePhaseAndAFaultThenTheDeviceSaysWhatItSaidBefore() async {
        let checkedIn = Self.record(ago: Self.hour)
        let store = makeStore(records: [checkedIn])
        await start(store, records: [checkedIn], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        store.send(.identifyRequested) { $0.feedback = .identify }
        XCTAssertEqual(store.state.indicator(fault: false), .identify)
        XCTAssertEqual(store.state.indicator(fault: true), .identify, "asked for by someone standing there, for seconds")
        await clock.advance(by: CheckInFeature.State.identifyDuration - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)
        XCTAssertEqual(store.state.indicator(fault: true), .fault)
        await stop(store)
    }

    func testAPressDuringIdentifyChecksInAndItsAcknowledgementIsNotCutShortByIdentify() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.identifyRequested) { $0.feedback = .identify }
        store.send(.buttonPressed) { $0.button = .held }
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
        }
        let stored = CheckInRecord(id: id(1), at: Self.start, source: .button)
        await store.receive(.checkInResponse(.success(stored))) {
            $0.isCheckingIn = false
            $0.history = [stored]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
        }
        await store.receive(.delegate(.checkInStored(stored)))
        store.send(.identifyRequested)  // the acknowledgement is the person's: it finishes first
        XCTAssertEqual(store.state.indicator(fault: false), .acknowledged)
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }
}
