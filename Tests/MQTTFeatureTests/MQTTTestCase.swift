import Backoff
import CheckInModels
import CheckInStoreClient
import ComposableCore
import DeviceClock
import LEDLanguage
import MQTTClient
import MQTTFeature
import Synchronization
import TestSupport
import UploadFeature
import UplinkClient
import XCTest

/// Shared set-up: a test clock for now and sleeping, the fake broker and event queue, ids counted
/// up from 1, and a random source at the top of its range (a backoff is exactly its bound).
@MainActor
class MQTTTestCase: ReducerTestCase {
    static let identity = MQTTIdentity(deviceID: "hall", deviceName: "LifeSignal", discoveryPrefix: "homeassistant",
                                       baseTopic: "lifesignal/hall", remoteCheckIn: false)
    var broker: FakeMQTTClient!
    var events: FakeDeviceEventQueue!
    var clock: DeviceClock!
    let counter = Counter()

    final class Counter: Sendable {
        private let value = Mutex<UInt64>(0)
        func next() -> CheckInID { CheckInID(high: 0x4000, low: value.withLock { $0 += 1; return $0 }) }
    }

    static let checkedIn = MQTTDeviceState(indicator: .checkedIn, phase: "checked_in",
                                           lastCheckIn: WallTime(iso8601: "2026-11-22T07:00:00Z"), lastCheckInSource: .button,
                                           nextDeadline: WallTime(iso8601: "2026-11-23T07:00:00Z"))

    func makeStore(identity: MQTTIdentity = MQTTTestCase.identity, onlyWay: Bool = false) -> TestStore<MQTTFeature> {
        broker = FakeMQTTClient()
        events = FakeDeviceEventQueue()
        clock = makeClock()
        let counter = counter
        let feature = MQTTFeature(identity: identity, client: broker.client, store: events.store, queue: events.queue, clock: clock,
                                  backoff: .network(cap: .seconds(60)), random: { $0.upperBound }, newID: { counter.next() })
        return TestStore(initialState: MQTTFeature.State(identity: identity, broker: broker.broker, isOnlyWayToReachAnyone: onlyWay),
                         reducer: feature)
    }

    func wall(_ offset: Duration = .zero) -> WallTime { Self.start.wall + offset }

    /// `.start`: connecting, listening.
    func start(_ store: TestStore<MQTTFeature>) async {
        store.send(.start) {
            $0.isRunning = true
            $0.connection = .connecting
        }
        await Task.megaYield()
    }

    /// The broker accepts: announced, subscribed, and the stored events drained (none here).
    func connect(_ store: TestStore<MQTTFeature>, at offset: Duration = .zero, pending: [DeviceEvent] = [],
                 file: StaticString = #filePath, line: UInt = #line) async {
        broker.emit(.connected)
        await store.receive(.connection(.connected), assert: {
            $0.connection = .connected
            $0.consecutiveFailures = 0
            $0.lastFailure = nil
            $0.unavailableSince = nil
            $0.outageIsFault = false
            $0.nextRetry = nil
            $0.retryDelay = nil
            $0.lastConnected = self.wall(offset)
            $0.publishedState = $0.device
            $0.statePublishesInFlight = 1
        }, file: file, line: line)
        await store.receive(.announced(nil), assert: {
            $0.statePublishesInFlight = 0
            $0.events.isRunning = true
            $0.events.step = .readingQueue
        }, file: file, line: line)
        await drain(store, pending, at: offset, file: file, line: line)
    }

    /// The events uploader publishes `pending` one batch, then finds the queue empty.
    func drain(_ store: TestStore<MQTTFeature>, _ pending: [DeviceEvent], at offset: Duration = .zero,
               file: StaticString = #filePath, line: UInt = #line) async {
        if !pending.isEmpty {
            await store.receive(.events(.batchRead(.success(pending))), assert: {
                $0.events.step = .sending(pending.map(\.id))
                $0.events.status = .uploading
                $0.events.lastAttempt = self.wall(offset)
                $0.events.oldestPending = .item(pending[0].id)
            }, file: file, line: line)
            await store.receive(.events(.delegate(.oldestPendingChanged(pending[0]))), file: file, line: line)
            await store.receive(.events(.batchSent(.success(UploadOutcome(acknowledged: pending.map(\.id))))), assert: {
                $0.events.step = .recording(UploadFeature<DeviceEvent>.Answer(sent: pending.count, acknowledged: pending.map(\.id),
                                                                                refused: []))
            }, file: file, line: line)
            await store.receive(.events(.answerRecorded(.success(pending.count))), assert: {
                $0.events.step = .readingQueue
                $0.events.uploadedSinceStart += pending.count
                $0.events.lastSuccess = self.wall(offset)
                $0.events.lastResult = .ok
                $0.events.lastMessage = nil
                $0.events.consecutiveFailures = 0
            }, file: file, line: line)
            await store.receive(.events(.delegate(.acknowledged(pending.map(\.id)))), file: file, line: line)
        }
        let wasKnownEmpty = store.state.events.oldestPending == .empty
        await store.receive(.events(.batchRead(.success([]))), assert: {
            $0.events.step = nil
            $0.events.status = .idle
            $0.events.oldestPending = .empty
        }, file: file, line: line)
        if !wasKnownEmpty {
            await store.receive(.events(.delegate(.oldestPendingChanged(nil))), file: file, line: line)
        }
    }

    /// The first attempt fails: the next waits out the backoff's first bound (2 s).
    func failFirstAttempt(_ store: TestStore<MQTTFeature>, with failure: MQTTFailure,
                          file: StaticString = #filePath, line: UInt = #line) async {
        broker.emit(.connectFailed(failure))
        await store.receive(.connection(.connectFailed(failure)), assert: {
            $0.connection = .waitingToRetry
            $0.consecutiveFailures = 1
            $0.lastFailure = failure
            $0.unavailableSince = self.wall()
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
        }, file: file, line: line)
    }

    /// The backoff after the first failure has passed: a new attempt.
    func retryAfterTheBackoff(_ store: TestStore<MQTTFeature>, file: StaticString = #filePath, line: UInt = #line) async {
        await testClock.advance(by: .seconds(2))
        await store.receive(.retryDue, assert: {
            $0.connection = .connecting
            $0.nextRetry = nil
            $0.retryDelay = nil
        }, file: file, line: line)
    }

    /// `.stop` from connected: offline said, disconnected, listening ended.
    func stop(_ store: TestStore<MQTTFeature>, wasConnected: Bool = true) async {
        store.send(.stop) {
            $0.isRunning = false
            $0.connection = .stopped
            $0.nextRetry = nil
            $0.retryDelay = nil
            $0.publishedState = nil
            $0.events.isRunning = false
            $0.events.step = nil
            $0.events.drainAgain = false
            if $0.events.status != .stopped { $0.events.status = .idle }
        }
        await store.receive(.stopped)
        await store.finish()
        XCTAssertEqual(broker.disconnects, 1)
        if wasConnected {
            XCTAssertEqual(broker.published.last, MQTTMessage(topic: "lifesignal/hall/availability", payload: "offline", retain: true),
                           "offline is said before a clean disconnect")
        }
    }

    /// Home Assistant's birth or last will on its status topic (`online`, `offline`).
    func homeAssistantStatus(_ status: String) -> MQTTInboundMessage {
        MQTTInboundMessage(topic: "homeassistant/status", payload: Array(status.utf8))
    }

    func message(_ command: String, _ payload: String = "PRESS", retained: Bool = false) -> MQTTInboundMessage {
        MQTTInboundMessage(topic: "lifesignal/hall/cmd/\(command)", payload: Array(payload.utf8), retained: retained)
    }
}
