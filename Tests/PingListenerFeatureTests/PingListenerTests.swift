import Backoff
import CheckInModels
import CheckInStoreClient
import Clocks
import ComposableCore
import ConcurrencyExtras
import DeviceClock
import PingListenerFeature
import TestSupport
import UplinkClient
import XCTest

/// The long poll: pings are stored, then handed on; empty polls are spaced; failures back off;
/// stop abandons a poll in flight.
@MainActor
final class PingListenerTests: XCTestCase {
    // Effects and the test clock must interleave deterministically (see CheckInFeatureTests).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    nonisolated static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000), bootID: "boot-a",
        wallClockSynchronized: true)
    let alice = PendingPing(id: "ping-alice", responderID: "r-alice", responderName: "Alice", createdAt: "2026-11-22T07:59:00Z")
    let bob = PendingPing(id: "ping-bob", responderID: "r-bob", responderName: "Bob", createdAt: "2026-11-22T07:58:00Z")
    let offline = UplinkFailure(.transient, "could not connect to the backend: connection refused")
    let wait = PingListenerFeature.longPollWait

    var clock: TestClock<Duration>!
    var backend: FakePingBackend!
    var pingStore: FakePingStore!

    func makeStore(pending: [PendingPing] = []) -> TestStore<PingListenerFeature> {
        clock = TestClock()
        backend = FakePingBackend(clock: clock)
        pingStore = FakePingStore(pending: pending)
        var uplink = UplinkClient.failing()
        uplink.pendingPings = backend.pendingPings
        let feature = PingListenerFeature(uplink: uplink, store: pingStore.client,
                                          clock: .driven(by: clock, startingAt: Self.start),
                                          backoff: .network(cap: .seconds(60)), random: { $0.upperBound })
        return TestStore(initialState: PingListenerFeature.State(), reducer: feature)
    }

    /// The uptime `offset` after the test's start.
    func uptime(_ offset: Duration = .zero) -> Duration { Self.start.uptime + offset }

    func startListening(_ store: TestStore<PingListenerFeature>) {
        store.send(.start) {
            $0.isRunning = true
            $0.status = .listening
            $0.step = .polling(since: self.uptime())
        }
    }

    func stop(_ store: TestStore<PingListenerFeature>) async {
        store.send(.stop) {
            $0.isRunning = false
            $0.status = .idle
            $0.step = nil
        }
        await store.finish()
    }

    func testPingsAreStoredFirstThenEveryPendingOneIsHandedOnAndTheNextPollGoesAtOnce() async {
        let store = makeStore(pending: [bob])
        let poll = PingPoll(pings: [alice], cursor: "c1")
        backend.answer(.after(.seconds(3), .success(poll)))
        startListening(store)
        await clock.advance(by: .seconds(3))
        let polling = store.state
        await store.receive(.pollResponse(.success(poll))) {
            $0.cursor = "c1"
            $0.step = .storing([self.alice])
        }
        XCTAssertEqual(PingListenerFeature.log(.pollResponse(.success(poll)), before: polling, after: store.state), [
            LogEntry(.notice, "pinged by Alice", metadata: ["pings": "1"]),
        ])
        await store.receive(.pingsSaved(.success([bob, alice]))) {
            $0.step = .polling(since: self.uptime(.seconds(3)))
        }
        await store.receive(.delegate(.pingsReceived([bob, alice])))
        XCTAssertEqual(pingStore.pending, [bob, alice], "stored before being shown")

        // Held for its whole wait, the next poll returns nothing and the one after goes at once.
        await clock.advance(by: wait)
        await store.receive(.pollResponse(.success(PingPoll(pings: [], cursor: "c1")))) {
            $0.step = .polling(since: self.uptime(.seconds(3) + self.wait))
        }
        await store.expectNoAction()
        XCTAssertEqual(backend.polls, [.init(cursor: nil, wait: wait), .init(cursor: "c1", wait: wait),
                                       .init(cursor: "c1", wait: wait)])
        await stop(store)
    }

    func testPollsThatReturnAtOnceAreSpacedByTheShortestCycle() async {
        let store = makeStore()
        let empty = PingPoll(pings: [], cursor: "c0")
        backend.answer(.now(.success(empty)), .after(.seconds(2), .success(empty)))
        startListening(store)
        await store.receive(.pollResponse(.success(empty))) {
            $0.cursor = "c0"
            $0.step = .pausing(.seconds(5))
        }
        await clock.advance(by: .seconds(5) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.pollDue) { $0.step = .polling(since: self.uptime(.seconds(5))) }
        // This one took 2 s: the cycle's rest is 3 s.
        await clock.advance(by: .seconds(2))
        await store.receive(.pollResponse(.success(empty))) { $0.step = .pausing(.seconds(3)) }
        await clock.advance(by: .seconds(3))
        await store.receive(.pollDue) { $0.step = .polling(since: self.uptime(.seconds(10))) }
        await store.expectNoAction()
        XCTAssertEqual(backend.polls.count, 3)
        await stop(store)
    }

    func testFailuresBackOffAPermanentOneWaitsTheCapAndASuccessResetsTheCount() async {
        let store = makeStore()
        let busy = UplinkFailure(.transient, "HTTP 429 from /v1/pings", httpStatus: 429, retryAfter: .seconds(30))
        let gone = UplinkFailure(.permanent, "HTTP 404 from /v1/pings: this backend has no pings", httpStatus: 404)
        backend.answer(.now(.failure(offline)), .now(.failure(busy)), .now(.failure(gone)),
                       .now(.success(PingPoll(pings: [], cursor: "c9"))))
        startListening(store)
        let polling = store.state
        await store.receive(.pollResponse(.failure(offline))) {
            $0.consecutiveFailures = 1
            $0.lastFailure = self.offline
            $0.status = .waitingToRetry
            $0.step = .pausing(.seconds(2))
        }
        XCTAssertEqual(store.state.lastMessage, offline.message)
        XCTAssertEqual(PingListenerFeature.log(.pollResponse(.failure(offline)), before: polling, after: store.state), [
            LogEntry(.warning, "listening for pings failed, asking again in 2 s: \(offline.message)", metadata: ["failures": "1"]),
        ])
        await clock.advance(by: .seconds(2))
        await store.receive(.pollDue) {
            $0.status = .listening
            $0.step = .polling(since: self.uptime(.seconds(2)))
        }
        await store.receive(.pollResponse(.failure(busy))) {
            $0.consecutiveFailures = 2
            $0.lastFailure = busy
            $0.status = .waitingToRetry
            $0.step = .pausing(.seconds(30))
        }
        await clock.advance(by: .seconds(30))
        await store.receive(.pollDue) {
            $0.status = .listening
            $0.step = .polling(since: self.uptime(.seconds(32)))
        }
        await store.receive(.pollResponse(.failure(gone))) {
            $0.consecutiveFailures = 3
            $0.lastFailure = gone
            $0.status = .waitingToRetry
            $0.step = .pausing(.seconds(60))
        }
        await clock.advance(by: .seconds(60) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.pollDue) {
            $0.status = .listening
            $0.step = .polling(since: self.uptime(.seconds(92)))
        }
        await store.receive(.pollResponse(.success(PingPoll(pings: [], cursor: "c9")))) {
            $0.consecutiveFailures = 0
            $0.lastFailure = nil
            $0.cursor = "c9"
            $0.step = .pausing(.seconds(5))
        }
        await stop(store)
    }

    func testTheNetworkComingBackCutsATransientBackoffShortButNotAPermanentOne() async {
        let store = makeStore()
        let later = UplinkFailure(.transient, "HTTP 503 from /v1/pings", httpStatus: 503, retryAfter: .seconds(600))
        let gone = UplinkFailure(.permanent, "HTTP 404 from /v1/pings", httpStatus: 404)
        // The second poll is held past the first backoff's end: if that backoff still ran, its
        // wake-up would arrive first and fail this exhaustive test.
        backend.answer(.now(.failure(later)), .after(.seconds(600), .failure(gone)))
        startListening(store)
        await store.receive(.pollResponse(.failure(later))) {
            $0.consecutiveFailures = 1
            $0.lastFailure = later
            $0.status = .waitingToRetry
            $0.step = .pausing(.seconds(600))
        }
        await clock.advance(by: .seconds(10))
        store.send(.networkChanged) {
            $0.status = .listening
            $0.step = .polling(since: self.uptime(.seconds(10)))
        }
        await clock.advance(by: .seconds(600))
        await store.receive(.pollResponse(.failure(gone))) {
            $0.consecutiveFailures = 2
            $0.lastFailure = gone
            $0.status = .waitingToRetry
            $0.step = .pausing(.seconds(60))
        }
        store.send(.networkChanged)
        await clock.advance(by: .seconds(60) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.pollDue) {
            $0.status = .listening
            $0.step = .polling(since: self.uptime(.seconds(670)))
        }
        await store.expectNoAction()
        XCTAssertEqual(backend.polls.count, 3)
        await stop(store)
    }

    func testAStoreThatCannotKeepThePingsStillShowsTheNewOnes() async {
        let store = makeStore()
        let poll = PingPoll(pings: [alice, bob], cursor: "c2")
        backend.answer(.now(.success(poll)))
        let full = StoreFailure(.full, "database or disk is full")
        pingStore.fail(with: full)
        startListening(store)
        await store.receive(.pollResponse(.success(poll))) {
            $0.cursor = "c2"
            $0.step = .storing([self.alice, self.bob])
        }
        let storing = store.state
        await store.receive(.pingsSaved(.failure(full))) { $0.step = .polling(since: self.uptime()) }
        XCTAssertEqual(PingListenerFeature.log(.pingsSaved(.failure(full)), before: storing, after: store.state), [
            LogEntry(.error, "pings could not be stored (shown anyway): database or disk is full"),
        ])
        await store.receive(.delegate(.pingsReceived([alice, bob])))
        await stop(store)
    }

    func testStopAbandonsAPollInFlightAndARestartAsksFromNoCursor() async {
        let store = makeStore()
        backend.answer(.now(.success(PingPoll(pings: [], cursor: "c5"))))
        startListening(store)
        await store.receive(.pollResponse(.success(PingPoll(pings: [], cursor: "c5")))) {
            $0.cursor = "c5"
            $0.step = .pausing(.seconds(5))
        }
        await clock.advance(by: .seconds(5))
        backend.gate.shut()
        backend.answer(.now(.success(PingPoll(pings: [alice], cursor: "c6"))))
        await store.receive(.pollDue) { $0.step = .polling(since: self.uptime(.seconds(5))) }
        await store.expectNoAction()
        XCTAssertEqual(backend.gate.waiting, 1, "the poll is open")
        store.send(.stop) {
            $0.isRunning = false
            $0.status = .idle
            $0.step = nil
        }
        backend.gate.open()
        await store.expectNoAction()
        await store.finish()
        XCTAssertEqual(pingStore.pending, [], "an answer after the stop is dropped, not stored")
        store.send(.pollDue)
        store.send(.networkChanged)

        // The backend sends every unanswered ping again after a restart.
        backend.answer(.now(.success(PingPoll(pings: [alice], cursor: "c6"))))
        store.send(.start) {
            $0.isRunning = true
            $0.status = .listening
            $0.cursor = nil
            $0.step = .polling(since: self.uptime(.seconds(5)))
        }
        await store.receive(.pollResponse(.success(PingPoll(pings: [alice], cursor: "c6")))) {
            $0.cursor = "c6"
            $0.step = .storing([self.alice])
        }
        await store.receive(.pingsSaved(.success([alice]))) { $0.step = .polling(since: self.uptime(.seconds(5))) }
        await store.receive(.delegate(.pingsReceived([alice])))
        await store.expectNoAction()
        XCTAssertEqual(backend.polls.map(\.cursor), [nil, "c5", nil, "c6"])
        await stop(store)
    }

    func testRoutineAnswersLogNothing() {
        var polling = PingListenerFeature.State()
        polling.step = .polling(since: .seconds(1))
        let empty = PingPoll(pings: [], cursor: "c")
        XCTAssertEqual(PingListenerFeature.log(.pollResponse(.success(empty)), before: polling, after: polling), [])
        XCTAssertEqual(PingListenerFeature.log(.pingsSaved(.success([alice])), before: polling, after: polling), [])
        // A dropped answer (nothing was polling) is not logged.
        let idle = PingListenerFeature.State()
        XCTAssertEqual(PingListenerFeature.log(.pollResponse(.failure(offline)), before: idle, after: idle), [])
    }
}
