import GPIOClient
import GPIOFeature
import Synchronization
import TestSupport
import XCTest

/// The chip missing at start or going away is waited for, the lines requested again when it is
/// back, and every change is told to the device (no button, no LEDs, then the LEDs written afresh).
final class GPIOFeatureTests: ReducerTestCase {
    let missing = GPIOError(operation: "open", target: "chip 'gpiochip9'", reason: "no such chip")
    let busy = GPIOError(operation: "request", target: "line GPIO17", reason: "Device or resource busy")
    let removed = GPIOError(operation: "read GPIO events", target: "chip 'gpiochip9'", reason: "the chip was removed")

    /// A chip a test controls: `connect` answers from a script; the button stream and the chip
    /// changes are fed by the test.
    final class Board: Sendable {
        let connects = Mutex<[GPIOError?]>([])
        let buttons = Mutex<AsyncStream<ButtonEvent>.Continuation?>(nil)
        let changes = Mutex<AsyncStream<String>.Continuation?>(nil)
        let lost = Mutex<GPIOError?>(nil)
        let released = Mutex(0)
        let watchable: Bool

        init(watchable: Bool) {
            self.watchable = watchable
        }

        var client: GPIOClient {
            GPIOClient(
                chipDescription: "chip 'gpiochip9'",
                connect: { [self] () throws(GPIOError) in
                    let next = connects.withLock { $0.isEmpty ? GPIOError.unexpected("connect beyond the script") : $0.removeFirst() }
                    if let next { throw next }
                    let (stream, continuation) = AsyncStream<ButtonEvent>.makeStream()
                    buttons.withLock { $0 = continuation }
                    lost.withLock { $0 = nil }
                    return stream
                },
                failure: { [self] in lost.withLock { $0 } },
                setLED: { _, _ throws(GPIOError) in throw .unexpected("setLED") },
                // As the real lines do: a release ends the button stream.
                release: { [self] in
                    released.withLock { $0 += 1 }
                    buttons.withLock { $0?.finish() }
                },
                chipChanges: { [self] in
                    guard watchable else { return nil }
                    let (stream, continuation) = AsyncStream<String>.makeStream()
                    changes.withLock { $0 = continuation }
                    return ChipWatch(changes: stream, stop: { continuation.finish() })
                },
                onlyAChipChangeHelps: { $0.reason == "no such chip" })
        }

        func press(_ kind: ButtonEvent.Kind, at: Duration) { _ = buttons.withLock { $0?.yield(ButtonEvent(kind, at: at)) } }
        func removeChip(_ failure: GPIOError) {
            lost.withLock { $0 = failure }
            buttons.withLock { $0?.finish() }
        }
        func chipChanged() { _ = changes.withLock { $0?.yield("gpiochip9") } }
    }

    func makeStore(_ board: Board) -> TestStore<GPIOFeature> {
        TestStore(initialState: GPIOFeature.State(chipDescription: "chip 'gpiochip9'"),
                  reducer: GPIOFeature(gpio: board.client, clock: makeClock()))
    }

    func stop(_ store: TestStore<GPIOFeature>) async {
        store.send(.stop) {
            $0.connection = .idle
            $0.isWatchingChips = false
            $0.retryScheduled = false
        }
        await store.finish()
    }

    func testButtonEventsReachTheDeviceWhileTheLinesAreHeld() async {
        let board = Board(watchable: true)
        board.connects.withLock { $0 = [nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.chipWatchStarted) { $0.isWatchingChips = true }
        await store.receive(.connected) { $0.connection = .connected }
        board.press(.pressed, at: .seconds(1))
        await store.receive(.buttonChanged(ButtonEvent(.pressed, at: .seconds(1))))
        await stop(store)
        XCTAssertEqual(board.released.withLock { $0 }, 1, "stopping lets the lines go")
    }

    func testStoppingReleasesTheLinesAndIsNotALostChip() async {
        let board = Board(watchable: true)
        board.connects.withLock { $0 = [nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.chipWatchStarted) { $0.isWatchingChips = true }
        await store.receive(.connected) { $0.connection = .connected }
        // The release ends the button stream; a stopped feature must not take that for a lost
        // chip (no `eventsEnded`, no `linesLost`: `finish` fails on any action received).
        await stop(store)
        XCTAssertEqual(board.released.withLock { $0 }, 1)
        XCTAssertNil(store.state.waitingFor)
    }

    func testAMissingChipIsWaitedForOnChipChangesWithoutATimerAndTheLinesComeBack() async {
        let board = Board(watchable: true)
        board.connects.withLock { $0 = [missing, nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.chipWatchStarted) { $0.isWatchingChips = true }
        await store.receive(.connectFailed(missing)) {
            $0.connection = .waiting(self.missing)
            $0.shownFailure = self.missing
            $0.consecutiveFailures = 1
        }
        XCTAssertEqual(store.state.waitingFor, missing)
        // No timer: an hour passes without an attempt.
        await testClock.advance(by: .seconds(3600))
        await store.expectNoAction()
        board.chipChanged()
        await store.receive(.chipsChanged)
        await store.receive(.connected) {
            $0.connection = .connected
            $0.shownFailure = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.linesRestored))
        await stop(store)
    }

    func testAChipThatGoesAwayIsALossUntilItIsBackAndTheLossIsWhatStatusShows() async {
        let board = Board(watchable: true)
        board.connects.withLock { $0 = [nil, missing, nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.chipWatchStarted) { $0.isWatchingChips = true }
        await store.receive(.connected) { $0.connection = .connected }

        board.removeChip(removed)
        await store.receive(.eventsEnded(removed)) {
            $0.connection = .waiting(self.removed)
            $0.shownFailure = self.removed
        }
        await store.receive(.delegate(.linesLost))
        await store.receive(.connectFailed(missing)) {
            $0.connection = .waiting(self.missing)
            $0.consecutiveFailures = 1
        }
        XCTAssertEqual(store.state.waitingFor, removed, "the loss says more than 'no such chip'")
        XCTAssertEqual(GPIOFeature.log(.connectFailed(missing), before: store.state, after: store.state), [],
                       "nothing new to log while waiting")

        board.chipChanged()
        await store.receive(.chipsChanged)
        await store.receive(.connected) {
            $0.connection = .connected
            $0.shownFailure = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.linesRestored))
        await stop(store)
    }

    func testAFailureAChipChangeCannotCureIsRetriedOnTheBackoff() async {
        let board = Board(watchable: true)
        board.connects.withLock { $0 = [busy, busy, nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.chipWatchStarted) { $0.isWatchingChips = true }
        await store.receive(.connectFailed(busy)) {
            $0.connection = .waiting(self.busy)
            $0.shownFailure = self.busy
            $0.consecutiveFailures = 1
            $0.retryScheduled = true
        }
        await testClock.advance(by: .seconds(1))
        await store.receive(.retryDue) { $0.retryScheduled = false }
        await store.receive(.connectFailed(busy)) {
            $0.consecutiveFailures = 2
            $0.retryScheduled = true
        }
        await testClock.advance(by: .milliseconds(1999))
        await store.expectNoAction()
        await testClock.advance(by: .milliseconds(1))
        await store.receive(.retryDue) { $0.retryScheduled = false }
        await store.receive(.connected) {
            $0.connection = .connected
            $0.shownFailure = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.linesRestored))
        await stop(store)
    }

    func testWithoutAChipWatchAMissingChipIsRetriedOnTheBackoff() async {
        let board = Board(watchable: false)
        board.connects.withLock { $0 = [missing, nil] }
        let store = makeStore(board)
        store.send(.start)
        await store.receive(.connectFailed(missing)) {
            $0.connection = .waiting(self.missing)
            $0.shownFailure = self.missing
            $0.consecutiveFailures = 1
            $0.retryScheduled = true
        }
        await testClock.advance(by: .seconds(1))
        await store.receive(.retryDue) { $0.retryScheduled = false }
        await store.receive(.connected) {
            $0.connection = .connected
            $0.shownFailure = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.linesRestored))
        await stop(store)
    }

    func testTheLogSaysEachNewFailureOnceAndTheReturn() {
        var before = GPIOFeature.State(chipDescription: "chip 'gpiochip9'")
        var after = before
        after.connection = .waiting(busy)
        after.shownFailure = busy
        XCTAssertEqual(GPIOFeature.log(.connectFailed(busy), before: before, after: after).map(\.level), [.error])
        before = after
        XCTAssertEqual(GPIOFeature.log(.connectFailed(busy), before: before, after: after), [], "the same failure again")
        after.connection = .connected
        after.shownFailure = nil
        XCTAssertEqual(GPIOFeature.log(.connected, before: before, after: after).map(\.message),
                       ["GPIO chip 'gpiochip9' is back: lines requested again"])
    }
}
