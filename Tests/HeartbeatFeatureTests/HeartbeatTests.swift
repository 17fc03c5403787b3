import CheckInModels
import Clocks
import ComposableCore
import ConcurrencyExtras
import DeviceClock
import HeartbeatFeature
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// One beat at the start, then one per period with one wake-up each; a failed beat waits for the
/// next period unless the network comes back; stop drops a beat still on its way.
@MainActor
final class HeartbeatTests: XCTestCase {
    // Effects and the test clock must interleave deterministically (see CheckInFeatureTests).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    nonisolated static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000), bootID: "boot-a",
        wallClockSynchronized: true)
    static let period = Duration.seconds(60)
    static let endpoint = "https://hc-ping.example/…beat"
    let offline = UplinkFailure(.transient, "could not connect to hc-ping.example: network unreachable")

    var clock: TestClock<Duration>!
    final class Depth: Sendable { let value = Mutex(3) }
    let depth = Depth()
    let target = FakeHeartbeatTarget()

    func makeStore() -> TestStore<HeartbeatFeature> {
        clock = TestClock()
        var uplink = UplinkClient.failing(endpoint: Self.endpoint)
        uplink.sendHeartbeat = target.send
        let feature = HeartbeatFeature(uplink: uplink, clock: .driven(by: clock, startingAt: Self.start),
                                       queueDepth: { [depth] in depth.value.withLock { $0 } })
        return TestStore(initialState: HeartbeatFeature.State(endpoint: Self.endpoint, period: Self.period), reducer: feature)
    }

    nonisolated func wall(_ offset: Duration) -> WallTime { Self.start.wall + offset }

    nonisolated func beat(at offset: Duration, depth: Int) -> DeviceHeartbeat {
        DeviceHeartbeat(bootID: "boot-a", uptime: Self.start.uptime + offset, queueDepth: depth)
    }

    /// A beat starting at `offset` (sent by `action`), delivered.
    func delivered(_ store: TestStore<HeartbeatFeature>, at offset: Duration, depth: Int) async {
        await store.receive(.heartbeatSent(.success(beat(at: offset, depth: depth)))) {
            $0.isSending = false
            $0.lastSuccess = self.wall(offset)
            $0.lastError = nil
        }
    }

    func testOneBeatAtTheStartThenOnePerPeriodWithNothingInBetween() async {
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isSending = true
            $0.lastAttempt = self.wall(.zero)
        }
        await delivered(store, at: .zero, depth: 3)
        store.send(.start)  // already running

        depth.value.withLock { $0 = 5 }
        await clock.advance(by: Self.period - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period)
        }
        await delivered(store, at: Self.period, depth: 5)
        await clock.advance(by: Self.period)
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period * 2)
        }
        await delivered(store, at: Self.period * 2, depth: 5)
        XCTAssertEqual(target.sent, [beat(at: .zero, depth: 3), beat(at: Self.period, depth: 5), beat(at: Self.period * 2, depth: 5)],
                       "each with the uptime and queue depth of its moment")
        await stop(store)
    }

    func testAFailedBeatIsNotRetriedOnItsOwnTimerAndTheNextPeriodDeliversAgain() async {
        let store = makeStore()
        target.answer(.failure(offline))
        store.send(.start) {
            $0.isRunning = true
            $0.isSending = true
            $0.lastAttempt = self.wall(.zero)
        }
        let sending = store.state
        await store.receive(.heartbeatSent(.failure(offline))) {
            $0.isSending = false
            $0.lastError = self.offline.message
        }
        XCTAssertEqual(HeartbeatFeature.log(.heartbeatSent(.failure(offline)), before: sending, after: store.state), [
            LogEntry(.info, "heartbeat not delivered (next in 1 min): \(offline.message)"),
        ])
        await clock.advance(by: Self.period - .milliseconds(1))
        await store.expectNoAction()
        XCTAssertEqual(target.sent.count, 1)
        await clock.advance(by: .milliseconds(1))
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period)
        }
        let again = store.state
        await delivered(store, at: Self.period, depth: 3)
        XCTAssertEqual(HeartbeatFeature.log(.heartbeatSent(.success(beat(at: Self.period, depth: 3))), before: again, after: store.state), [
            LogEntry(.notice, "heartbeat to \(Self.endpoint) delivered again"),
        ])
        await stop(store)
    }

    func testTheNetworkComingBackSendsABeatAtOnceOnlyWhenTheLastOneFailedAndThePeriodRestartsFromIt() async {
        let store = makeStore()
        store.send(.start) {
            $0.isRunning = true
            $0.isSending = true
            $0.lastAttempt = self.wall(.zero)
        }
        await delivered(store, at: .zero, depth: 3)
        store.send(.networkChanged)  // the last one got through: nothing to do
        await store.expectNoAction()

        target.answer(.failure(offline))
        await clock.advance(by: Self.period)
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period)
        }
        await store.receive(.heartbeatSent(.failure(offline))) {
            $0.isSending = false
            $0.lastError = self.offline.message
        }
        await clock.advance(by: .seconds(10))
        store.send(.networkChanged) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period + .seconds(10))
        }
        await delivered(store, at: Self.period + .seconds(10), depth: 3)

        // The next beat is a period after that one, not at the old period's end.
        await clock.advance(by: Self.period - .seconds(10))
        await store.expectNoAction()
        await clock.advance(by: .seconds(10))
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period * 2 + .seconds(10))
        }
        await delivered(store, at: Self.period * 2 + .seconds(10), depth: 3)
        XCTAssertEqual(target.sent.count, 4)
        await stop(store)
    }

    func testABeatStillOnItsWayWhenThePeriodEndsIsNotDoubled() async {
        let store = makeStore()
        target.gate.shut()
        store.send(.start) {
            $0.isRunning = true
            $0.isSending = true
            $0.lastAttempt = self.wall(.zero)
        }
        await clock.advance(by: Self.period)
        await store.receive(.periodElapsed)
        target.gate.open()
        await store.receive(.heartbeatSent(.success(beat(at: .zero, depth: 3)))) {
            $0.isSending = false
            $0.lastSuccess = self.wall(Self.period)
        }
        XCTAssertEqual(target.sent.count, 1)
        await clock.advance(by: Self.period)
        await store.receive(.periodElapsed) {
            $0.isSending = true
            $0.lastAttempt = self.wall(Self.period * 2)
        }
        await delivered(store, at: Self.period * 2, depth: 3)
        await stop(store)
    }

    func testStopDropsABeatStillOnItsWayAndEndsThePeriod() async {
        let store = makeStore()
        target.gate.shut()
        store.send(.start) {
            $0.isRunning = true
            $0.isSending = true
            $0.lastAttempt = self.wall(.zero)
        }
        await store.expectNoAction()
        XCTAssertEqual(target.gate.waiting, 1, "the beat is on its way")
        store.send(.stop) {
            $0.isRunning = false
            $0.isSending = false
        }
        target.gate.open()
        await clock.advance(by: Self.period * 3)
        await store.expectNoAction()
        await store.finish()
        XCTAssertEqual(target.sent.count, 1)
        store.send(.networkChanged)
        store.send(.periodElapsed)
    }

    func testRoutineBeatsLogNothing() {
        var sending = HeartbeatFeature.State(endpoint: Self.endpoint, period: Self.period)
        sending.isSending = true
        let done = HeartbeatFeature.State(endpoint: Self.endpoint, period: Self.period)
        XCTAssertEqual(HeartbeatFeature.log(.heartbeatSent(.success(beat(at: .zero, depth: 0))), before: sending, after: done), [])
        XCTAssertEqual(HeartbeatFeature.log(.periodElapsed, before: done, after: sending), [])
        // An answer the reducer dropped (nothing was on its way) is not logged either.
        XCTAssertEqual(HeartbeatFeature.log(.heartbeatSent(.failure(offline)), before: done, after: done), [])
    }

    func stop(_ store: TestStore<HeartbeatFeature>) async {
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }
}

/// The heartbeat target as a script: each beat takes the next scripted answer (delivered when
/// none is left); every beat sent is kept.
final class FakeHeartbeatTarget: Sendable {
    private let state = Mutex<(script: [Result<Void, UplinkFailure>], sent: [DeviceHeartbeat])>(([], []))
    let gate = Gate()

    func answer(_ results: Result<Void, UplinkFailure>...) { state.withLock { $0.script += results } }
    var sent: [DeviceHeartbeat] { state.withLock { $0.sent } }

    var send: @Sendable (DeviceHeartbeat) async -> Result<Void, UplinkFailure> {
        { [self] heartbeat in
            let answer = state.withLock { state in
                state.sent.append(heartbeat)
                return state.script.isEmpty ? .success(()) : state.script.removeFirst()
            }
            await gate.pass()
            return answer
        }
    }
}
