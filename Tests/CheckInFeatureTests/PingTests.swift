import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ConcurrencyExtras
import XCTest

/// Responders' pings: a pending ping lights its pattern, and the next check-in answers every
/// pending ping in the same durable write (the app's `respondToPing`).
final class PingTests: FeatureTestCase {
    let alice = PendingPing(id: "ping-alice", responderID: "r-alice", responderName: "Alice", createdAt: "2026-11-22T07:59:00Z")
    let bob = PendingPing(id: "ping-bob", responderID: "r-bob", responderName: "Bob", createdAt: "2026-11-22T07:59:30Z")

    func record(_ n: UInt64, at elapsed: Duration, source: CheckInSource) -> CheckInRecord {
        CheckInRecord(id: id(n), at: Self.start.advanced(by: elapsed), source: source)
    }

    func response(_ n: UInt64, to ping: PendingPing, checkIn: UInt64, at elapsed: Duration) -> PingResponse {
        PingResponse(id: id(n), pingID: ping.id, checkInID: id(checkIn), at: Self.start.advanced(by: elapsed).wall)
    }

    func testAPressAnswersEveryPendingPingWithTheCheckInInOneWrite() async {
        let checkedIn = Self.record(ago: Self.hour)
        let store = makeStore(records: [checkedIn])
        await start(store, records: [checkedIn], expectPhase: .checkedIn(countdown(remaining: Self.hour * 23)))
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn)

        store.send(.pingsReceived([alice])) { $0.pendingPings = [self.alice] }
        XCTAssertEqual(store.state.indicator(fault: false), .pingPending)
        store.send(.pingsReceived([alice, bob])) { $0.pendingPings = [self.alice, self.bob] }  // Alice once

        await clock.advance(by: .seconds(30))
        store.send(.buttonPressed) { $0.button = .held }
        await clock.advance(by: .milliseconds(200))
        let at = Duration.seconds(30) + .milliseconds(200)
        let responses = [response(2, to: alice, checkIn: 1, at: at), response(3, to: bob, checkIn: 1, at: at)]
        store.send(.buttonReleased) {
            $0.button = .released
            $0.isCheckingIn = true
            $0.pingResponsesBeingStored = responses
        }
        let stored = record(1, at: at, source: .button)
        await store.receive(.checkInResponse(.success(stored))) {
            $0.isCheckingIn = false
            $0.history = [stored, checkedIn]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24, now: at))
            $0.pendingPings = []
            $0.pingResponsesBeingStored = []
        }
        await store.receive(.delegate(.checkInStored(stored)))
        await store.receive(.delegate(.pingsAnswered(responses)))
        XCTAssertEqual(fake.records.first, stored)
        XCTAssertEqual(fake.pingResponses, responses, "the responses went into the check-in's write")

        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        XCTAssertEqual(store.state.indicator(fault: false), .checkedIn, "answered: the ping pattern is gone")
        await stop(store)
    }

    func testACheckInFromTheCLIAnswersPingsToo() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.pingsReceived([bob])) { $0.pendingPings = [self.bob] }
        store.send(.checkInRequested(.cli)) {
            $0.isCheckingIn = true
            $0.pingResponsesBeingStored = [self.response(2, to: self.bob, checkIn: 1, at: .zero)]
        }
        let stored = record(1, at: .zero, source: .cli)
        await store.receive(.checkInResponse(.success(stored))) {
            $0.isCheckingIn = false
            $0.history = [stored]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
            $0.pendingPings = []
            $0.pingResponsesBeingStored = []
        }
        await store.receive(.delegate(.checkInStored(stored)))
        await store.receive(.delegate(.pingsAnswered([response(2, to: bob, checkIn: 1, at: .zero)])))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        await stop(store)
    }

    func testAFailedWriteLeavesThePingsPendingAndAnswersNothing() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.pingsReceived([alice])) { $0.pendingPings = [self.alice] }
        let failure = StoreFailure(.full, "disk full")
        fake.failWrites(with: failure)
        store.send(.checkInRequested(.button)) {
            $0.isCheckingIn = true
            $0.pingResponsesBeingStored = [self.response(2, to: self.alice, checkIn: 1, at: .zero)]
        }
        await store.receive(.checkInResponse(.failure(failure))) {
            $0.isCheckingIn = false
            $0.pingResponsesBeingStored = []
        }
        await store.receive(.delegate(.checkInFailed(failure)))
        XCTAssertEqual(store.state.indicator(fault: true), .fault, "a fault wins over a pending ping")
        XCTAssertEqual(fake.pingResponses, [])
        XCTAssertEqual(store.state.pendingPings, [alice], "still waiting for an answer")
        await stop(store)
    }

    func testAPingArrivingDuringTheWriteStaysPendingForTheNextPress() async {
        let store = makeStore()
        await start(store, expectPhase: .neverCheckedIn)
        store.send(.pingsReceived([alice])) { $0.pendingPings = [self.alice] }
        fake.holdWrites()
        let answer = response(2, to: alice, checkIn: 1, at: .zero)
        store.send(.checkInRequested(.button)) {
            $0.isCheckingIn = true
            $0.pingResponsesBeingStored = [answer]
        }
        await Task.megaYield()
        store.send(.pingsReceived([bob])) { $0.pendingPings = [self.alice, self.bob] }
        XCTAssertTrue(fake.releaseHeldWrite(), "the write should be waiting")
        let stored = record(1, at: .zero, source: .button)
        await store.receive(.checkInResponse(.success(stored))) {
            $0.isCheckingIn = false
            $0.history = [stored]
            $0.feedback = .acknowledged
            $0.phase = .checkedIn(self.countdown(remaining: Self.hour * 24))
            $0.pendingPings = [self.bob]
            $0.pingResponsesBeingStored = []
        }
        await store.receive(.delegate(.checkInStored(stored)))
        await store.receive(.delegate(.pingsAnswered([answer])))
        await clock.advance(by: .milliseconds(1500))
        await store.receive(.feedbackFinished) { $0.feedback = nil }
        XCTAssertEqual(store.state.indicator(fault: false), .pingPending)
        await stop(store)
    }

    func testOverdueAndFeedbackWinOverAPendingPingWhichWinsOverReminder() {
        var state = CheckInFeature.State()
        state.pendingPings = [alice]
        let countdown = Countdown(deadline: Self.start.wall, remaining: .seconds(60))
        state.phase = .reminder(countdown)
        XCTAssertEqual(state.indicator(fault: false), .pingPending)
        state.phase = .neverCheckedIn
        XCTAssertEqual(state.indicator(fault: false), .pingPending)
        state.phase = .overdue(countdown)
        XCTAssertEqual(state.indicator(fault: false), .overdue)
        state.phase = .checkedIn(countdown)
        state.feedback = .acknowledged
        XCTAssertEqual(state.indicator(fault: false), .acknowledged)
        state.feedback = .longPress
        XCTAssertEqual(state.indicator(fault: false), .longPress)
        state.feedback = nil
        XCTAssertEqual(state.indicator(fault: true), .fault)
    }
}
