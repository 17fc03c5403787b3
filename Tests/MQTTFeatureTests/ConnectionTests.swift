import CheckInModels
import ComposableCore
import MQTTClient
import MQTTFeature
import TestSupport
import XCTest

/// The connection's life: the last will on every attempt, the announcement in order, the shared
/// backoff after a failure (cut short when the network comes back), a clean goodbye at shutdown,
/// and an outage that is a fault only where MQTT is the only way to reach anyone.
final class ConnectionTests: MQTTTestCase {
    let refused = MQTTFailure(.unreachable, "mqtt://broker.test:1883: connection refused (is the broker running?)")

    func testAConnectionCarriesOfflineAsItsLastWillAndAnnouncesDiscoveryStateAndOnlineBeforeSubscribing() async {
        let store = makeStore()
        store.send(.deviceChanged(Self.checkedIn)) { $0.device = Self.checkedIn }
        XCTAssertEqual(broker.published, [], "nothing goes out before a connection")
        await start(store)
        XCTAssertEqual(broker.connects, [MQTTConnectOptions(will: MQTTMessage(topic: "lifesignal/hall/availability",
                                                                              payload: "offline", retain: true))])
        await connect(store)
        XCTAssertEqual(broker.published.map(\.topic),
                       ["homeassistant/device/hall/config", "lifesignal/hall/state", "lifesignal/hall/availability"])
        XCTAssertEqual(broker.published.map(\.retain), [true, true, true])
        XCTAssertEqual(broker.published.map(\.qos), [.atLeastOnce, .atLeastOnce, .atLeastOnce])
        XCTAssertEqual(broker.published(on: "lifesignal/hall/state"), [Self.checkedIn.json.text])
        XCTAssertEqual(broker.published(on: "lifesignal/hall/availability"), ["online"])
        XCTAssertEqual(broker.subscriptions, [["lifesignal/hall/cmd/+", "lifesignal/hall/watchers/+", "homeassistant/status"]])
        await stop(store)
    }

    func testAFailedAttemptWaitsOutTheSharedBackoffAndTheNetworkComingBackTriesAtOnce() async {
        let store = makeStore()
        await start(store)
        await failFirstAttempt(store, with: refused)
        XCTAssertTrue(store.state.isUnavailable)
        XCTAssertFalse(store.state.outageIsFault)
        await testClock.advance(by: .seconds(2) - .milliseconds(1))
        await store.expectNoAction()
        await testClock.advance(by: .milliseconds(1))
        await store.receive(.retryDue) {
            $0.connection = .connecting
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await Task.megaYield()
        XCTAssertEqual(broker.connects.count, 2)

        broker.emit(.connectFailed(refused))
        await store.receive(.connection(.connectFailed(refused))) {
            $0.connection = .waitingToRetry
            $0.consecutiveFailures = 2
            $0.nextRetry = self.wall(.seconds(6))
            $0.retryDelay = .seconds(4)
        }
        store.send(.networkChanged) {
            $0.connection = .connecting
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await Task.megaYield()
        XCTAssertEqual(broker.connects.count, 3, "the network came back: no waiting for the backoff")
        await connect(store, at: .seconds(2))
        XCTAssertFalse(store.state.isUnavailable)
        store.send(.networkChanged)  // connected: nothing to do
        await testClock.advance(by: .seconds(10))
        await store.expectNoAction()
        XCTAssertEqual(broker.connects.count, 3, "the cancelled backoff never fires")
        await stop(store)
    }

    func testALostConnectionPublishesNothingUntilConnectedAgainAndThenTheCurrentStateOnce() async {
        let store = makeStore()
        await start(store)
        await connect(store)
        store.send(.deviceChanged(Self.checkedIn)) {
            $0.device = Self.checkedIn
            $0.publishedState = Self.checkedIn
            $0.statePublishesInFlight = 1
        }
        await store.receive(.statePublished) { $0.statePublishesInFlight = 0 }
        let lost = MQTTFailure(.lost, "the connection to mqtt://broker.test:1883 was lost")
        broker.emit(.connectionLost(lost))
        await store.receive(.connection(.connectionLost(lost))) {
            $0.connection = .waitingToRetry
            $0.consecutiveFailures = 1
            $0.lastFailure = lost
            $0.unavailableSince = self.wall()
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
            $0.publishedState = nil
            $0.events.isRunning = false
        }
        var reminder = Self.checkedIn
        reminder.indicator = .reminder
        reminder.phase = "reminder"
        store.send(.deviceChanged(reminder)) { $0.device = reminder }
        await retryAfterTheBackoff(store)
        await connect(store, at: .seconds(2))
        XCTAssertEqual(broker.published(on: "lifesignal/hall/state"), [Self.checkedIn.json.text, reminder.json.text],
                       "the reminder reaches the broker once, with the new connection")
        XCTAssertEqual(broker.published(on: "homeassistant/device/hall/config").count, 2, "each connection announces the device")
        await stop(store)
    }

    func testAnOutageIsAFaultAfterTheGraceWhereMQTTIsTheOnlyWayToReachAnyone() async {
        let store = makeStore(onlyWay: true)
        await start(store)
        await failFirstAttempt(store, with: refused)
        await retryAfterTheBackoff(store)
        // The attempt hangs (no answer yet): still away, and the grace runs out.
        await testClock.advance(by: MQTTFeature.faultGrace - .seconds(2))
        await store.receive(.faultGraceEnded) { $0.outageIsFault = true }
        await connect(store, at: MQTTFeature.faultGrace)
        XCTAssertFalse(store.state.outageIsFault, "connected: no fault")
        await stop(store)
    }

    func testAnOutageIsNeverAFaultWhereSomethingElseReachesPeople() async {
        let store = makeStore(onlyWay: false)
        await start(store)
        await failFirstAttempt(store, with: refused)
        await retryAfterTheBackoff(store)
        await testClock.advance(by: MQTTFeature.faultGrace * 2)
        await store.expectNoAction()
        XCTAssertTrue(store.state.isUnavailable)
        XCTAssertFalse(store.state.outageIsFault)
        await stop(store, wasConnected: false)
    }

    func testStoppingWhileWaitingToRetryDisconnectsWithoutSayingOfflineAndNeverRetries() async {
        let store = makeStore()
        await start(store)
        await failFirstAttempt(store, with: refused)
        await stop(store, wasConnected: false)
        XCTAssertEqual(broker.published, [], "no connection to say offline on (the broker's copy of the will says it)")
        await testClock.advance(by: .seconds(60))
        XCTAssertEqual(broker.connects.count, 1)
        broker.emit(.connected)  // a late answer after the stop changes nothing
        await Task.megaYield()
    }
}
