import Clocks
import ComposableCore
import TestSupport
import ConcurrencyExtras
import XCTest

/// A tiny counter feature that exercises every kind of effect the core offers.
struct Counter: Reducer {
    struct State: Equatable { var count = 0; var log: [String] = [] }
    enum Action: Equatable, Sendable {
        case increment, incrementTwiceSynchronously, startTimer, stopTimer, timerFired, restartTimer
    }
    let clock: TestClock<Duration>
    static let timer = EffectID("timer")

    func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .increment:
            state.count += 1
            return .none
        case .incrementTwiceSynchronously:
            state.log.append("twice")
            return .merge(.send(.increment), .send(.increment))
        case .startTimer, .restartTimer:
            return .run { [clock] send in
                while (try? await clock.sleep(for: .seconds(1))) != nil { await send(.timerFired) }
            }
            .cancellable(id: Self.timer, cancelInFlight: action == .restartTimer)
        case .stopTimer:
            return .cancel(id: Self.timer)
        case .timerFired:
            state.log.append("tick")
            return .none
        }
    }
}

@MainActor
final class StoreTests: XCTestCase {
    override func invokeTest() { withMainSerialExecutor { super.invokeTest() } }

    func testSynchronousSendsAreProcessedInOrderBeforeAnythingElse() {
        let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
        var seen: [Counter.Action] = []
        store.observe { _, action in seen.append(action) }
        store.send(.incrementTwiceSynchronously)
        XCTAssertEqual(store.state.count, 2)
        XCTAssertEqual(seen, [.incrementTwiceSynchronously, .increment, .increment])
    }

    func testAnObserversSendComesAfterTheSynchronousSendsOfTheActionItSaw() {
        let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
        var seen: [Counter.Action] = []
        store.observe { _, action in
            seen.append(action)
            if action == .incrementTwiceSynchronously { store.send(.stopTimer) }
        }
        store.send(.incrementTwiceSynchronously)
        XCTAssertEqual(seen, [.incrementTwiceSynchronously, .increment, .increment, .stopTimer])
    }

    func testObserversSeeAnActionBeforeItsEffectsStart() {
        let store = Store(initialState: Counter.State(), reducer: Counter(clock: TestClock()))
        var runningWhenObserved: [Int] = []
        store.observe { _, _ in runningWhenObserved.append(store.inFlightEffectCount) }
        store.send(.startTimer)
        XCTAssertEqual(runningWhenObserved, [0])
        XCTAssertEqual(store.inFlightEffectCount, 1)
        store.cancelAllEffects()
    }

    func testCancelledEffectDeliversNothingMore() async {
        let clock = TestClock<Duration>()
        let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: clock))
        store.send(.startTimer)
        await clock.advance(by: .seconds(1))
        await store.receive(.timerFired) { $0.log = ["tick"] }
        store.send(.stopTimer)
        await clock.advance(by: .seconds(5))
        await store.finish()
    }

    func testCancelInFlightReplacesTheEarlierEffect() async {
        let clock = TestClock<Duration>()
        let store = TestStore(initialState: Counter.State(), reducer: Counter(clock: clock))
        store.send(.startTimer)
        await clock.advance(by: .milliseconds(500))
        store.send(.restartTimer)
        // Had the first timer survived, it would fire at 1 s; the replacement fires at 1.5 s only.
        await clock.advance(by: .milliseconds(500))
        await clock.advance(by: .milliseconds(500))
        await store.receive(.timerFired) { $0.log = ["tick"] }
        store.send(.stopTimer)
        await store.finish()
    }

    func testStoreWaitsForRunningEffects() async {
        let clock = TestClock<Duration>()
        let store = Store(initialState: Counter.State(), reducer: Counter(clock: clock))
        store.send(.startTimer)
        XCTAssertEqual(store.inFlightEffectCount, 1)
        store.send(.stopTimer)
        await store.waitForEffects()
        XCTAssertEqual(store.inFlightEffectCount, 0)
    }
}
