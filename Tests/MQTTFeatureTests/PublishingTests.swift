import CheckInModels
import CheckInStoreClient
import ComposableCore
import MQTTClient
import MQTTFeature
import TestSupport
import UploadFeature
import XCTest

/// The state goes out when it changes, and only while connected; events are stored as they
/// happen and published in order once the broker is there; Home Assistant coming online gets the
/// device again.
final class PublishingTests: MQTTTestCase {
    func testTheStateIsPublishedWhenItChangesAndOnlyThen() async {
        let store = makeStore()
        await start(store)
        await connect(store)
        XCTAssertEqual(broker.published.map(\.topic), ["homeassistant/device/hall/config", "lifesignal/hall/availability"],
                       "no state to announce before the device said it")
        store.send(.deviceChanged(Self.checkedIn)) {
            $0.device = Self.checkedIn
            $0.publishedState = Self.checkedIn
            $0.statePublishesInFlight = 1
        }
        await store.receive(.statePublished) { $0.statePublishesInFlight = 0 }
        store.send(.deviceChanged(Self.checkedIn))
        var pinged = Self.checkedIn
        pinged.pingPending = true
        pinged.indicator = .pingPending
        store.send(.deviceChanged(pinged)) {
            $0.device = pinged
            $0.publishedState = pinged
            $0.statePublishesInFlight = 1
        }
        await store.receive(.statePublished) { $0.statePublishesInFlight = 0 }
        XCTAssertEqual(broker.published(on: "lifesignal/hall/state"), [Self.checkedIn.json.text, pinged.json.text])
        XCTAssertEqual(broker.published.last?.retain, true, "the state is retained for whoever subscribes later")
        await stop(store)
    }

    func testTurningOverdueIsAnEventButStartingOverdueIsNot() async {
        let store = makeStore()
        let overdue = MQTTDeviceState(indicator: .overdue, phase: "overdue", nextDeadline: wall(.seconds(-5)))
        store.send(.deviceChanged(MQTTDeviceState(indicator: .starting, phase: "starting"))) {
            $0.device = MQTTDeviceState(indicator: .starting, phase: "starting")
        }
        store.send(.deviceChanged(overdue)) { $0.device = overdue }
        XCTAssertEqual(events.pending, [], "overdue already at start-up: no event (the state says it)")

        var reminder = overdue
        reminder.indicator = .reminder
        reminder.phase = "reminder"
        store.send(.deviceChanged(reminder)) { $0.device = reminder }
        store.send(.deviceChanged(overdue)) { $0.device = overdue }
        let event = DeviceEvent(id: CheckInID(high: 0x4000, low: 1), entity: "check_in",
                                payload: #"{"event_type":"overdue","deadline":"2026-11-22T07:59:55.000Z","at":"2026-11-22T08:00:00.000Z","id":"00000000-0000-4000-0000-000000000001"}"#,
                                at: wall())
        await store.receive(.eventOccurred(.overdue(deadline: wall(.seconds(-5)), at: wall())))
        await store.receive(.eventStored(.success(event)))
        XCTAssertEqual(events.pending, [event])
        await store.finish()
    }

    func testEventsThatHappenWhileTheBrokerIsAwayArePublishedInOrderOnceItIsBack() async {
        let store = makeStore()
        await start(store)
        let away = MQTTFailure(.unreachable, "connection refused")
        await failFirstAttempt(store, with: away)
        let record = CheckInRecord(id: CheckInID(high: 7, low: 7), at: Self.start, source: .button)
        store.send(.eventOccurred(.checkIn(record)))
        await Task.megaYield()
        let checkIn = events.pendingOrFail(0)
        await store.receive(.eventStored(.success(checkIn)))
        store.send(.eventOccurred(.longPress(at: wall(.seconds(1)))))
        await Task.megaYield()
        let longPress = events.pendingOrFail(1)
        await store.receive(.eventStored(.success(longPress)))
        XCTAssertEqual(broker.published, [])

        await retryAfterTheBackoff(store)
        await connect(store, at: .seconds(2), pending: [checkIn, longPress])
        XCTAssertEqual(broker.published.map(\.topic).suffix(2), ["lifesignal/hall/event/check_in", "lifesignal/hall/event/help_alert"])
        XCTAssertEqual(broker.published.suffix(2).map(\.retain), [false, false], "events are never retained")
        XCTAssertEqual(broker.published(on: "lifesignal/hall/event/check_in"), [
            #"{"event_type":"check_in","check_in_id":"00000000-0000-0007-0000-000000000007","source":"button","at":"2026-11-22T08:00:00.000Z","id":"00000000-0000-4000-0000-000000000001"}"#,
        ])
        XCTAssertEqual(broker.published(on: "lifesignal/hall/event/help_alert"), [
            #"{"event_type":"long_press","at":"2026-11-22T08:00:01.000Z","id":"00000000-0000-4000-0000-000000000002"}"#,
        ])
        XCTAssertEqual(events.pending, [], "published events leave the store")

        // While connected an event goes out at once.
        store.send(.eventOccurred(.alertCancelled(source: "button", at: wall(.seconds(3)))))
        await Task.megaYield()
        let cancelled = events.pendingOrFail(0)
        await store.receive(.eventStored(.success(cancelled))) { $0.events.step = .readingQueue }
        await drain(store, [cancelled], at: .seconds(2))
        await stop(store)
    }

    func testAnEventThatCannotBeStoredIsTheStoresProblem() async {
        let store = makeStore()
        let full = StoreFailure(.full, "disk full")
        events.failAppends(with: full)
        store.send(.eventOccurred(.longPress(at: wall())))
        await store.receive(.eventStored(.failure(full)))
        await store.receive(.delegate(.eventNotStored(full)))
        await store.finish()
    }

    func testHomeAssistantComingOnlineGetsDiscoveryAndTheStateAgain() async {
        let store = makeStore()
        store.send(.deviceChanged(Self.checkedIn)) { $0.device = Self.checkedIn }
        await start(store)
        await connect(store)
        broker.forgetPublished()
        broker.deliver(homeAssistantStatus("online"))
        await store.receive(.message(homeAssistantStatus("online"))) {
            $0.statePublishesInFlight = 1
        }
        await store.receive(.statePublished) { $0.statePublishesInFlight = 0 }
        XCTAssertEqual(broker.published.map(\.topic), ["homeassistant/device/hall/config", "lifesignal/hall/state"])
        broker.forgetPublished()
        broker.deliver(homeAssistantStatus("offline"))
        await store.receive(.message(homeAssistantStatus("offline")))
        XCTAssertEqual(broker.published, [], "Home Assistant going away needs nothing")
        await stop(store)
    }

    /// Two messages on the state topic in flight at once can reach the broker in either order,
    /// and it keeps whichever came last: a change made while an announcement is on its way waits
    /// for it, so Home Assistant never keeps showing an older state.
    func testAStateThatChangesWhileAnAnnouncementIsOnItsWayGoesOutAfterItSoTheNewestIsRetained() async {
        let store = makeStore()
        store.send(.deviceChanged(Self.checkedIn)) { $0.device = Self.checkedIn }
        await start(store)
        await connect(store)
        broker.forgetPublished()
        broker.publishGate.shut()
        broker.deliver(homeAssistantStatus("online"))
        await store.receive(.message(homeAssistantStatus("online"))) { $0.statePublishesInFlight = 1 }
        await Task.megaYield()
        XCTAssertEqual(broker.publishGate.waiting, 1, "the announcement's discovery waits at the broker")
        var reminder = Self.checkedIn
        reminder.indicator = .reminder
        reminder.phase = "reminder"
        store.send(.deviceChanged(reminder)) { $0.device = reminder }
        await Task.megaYield()
        XCTAssertEqual(broker.publishGate.waiting, 1, "the change waits for the announcement")
        broker.publishGate.open()
        await store.receive(.statePublished) {
            $0.publishedState = reminder
        }
        await store.receive(.statePublished) { $0.statePublishesInFlight = 0 }
        XCTAssertEqual(broker.published(on: "lifesignal/hall/state"), [Self.checkedIn.json.text, reminder.json.text],
                       "the newest state reaches the broker last")
        await stop(store)
    }
}

extension FakeDeviceEventQueue {
    /// The stored event at `index`, or a placeholder that makes the test fail where it is used.
    func pendingOrFail(_ index: Int, file: StaticString = #filePath, line: UInt = #line) -> DeviceEvent {
        guard pending.indices.contains(index) else {
            XCTFail("no stored event #\(index): \(pending)", file: file, line: line)
            return DeviceEvent(id: CheckInID(high: 0, low: 0), entity: "", payload: "", at: WallTime(microsecondsSinceEpoch: 0))
        }
        return pending[index]
    }
}
