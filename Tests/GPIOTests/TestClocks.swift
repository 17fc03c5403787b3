import Synchronization
import XCTest

/// A clock whose `sleep` advances time at once: a single task (one `press`) runs through hours of
/// simulated time in microseconds, deterministically.
final class InstantClock: Sendable {
    private let time = Mutex<Duration>(.seconds(1000))

    var now: Duration { time.withLock { $0 } }

    func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    func sleep(_ duration: Duration) async throws {
        try Task.checkCancellation()
        time.withLock { $0 += max(.zero, duration) }
    }
}

/// A clock that stands still until the test advances it; sleepers wake when their deadline is
/// reached. Supports cancellation, so a cancelled settle timer leaves no sleeper behind.
final class ManualClock: Sendable {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .seconds(1000)
        var sleepers: [Sleeper] = []
        var cancelled: Set<UInt64> = []
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    var now: Duration { state.withLock { $0.now } }
    var sleeperCount: Int { state.withLock { $0.sleepers.count } }
    var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    func sleep(_ duration: Duration) async throws {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: (any Error)?? = state.withLock { state in
                    if state.cancelled.remove(id) != nil { return .some(CancellationError()) }
                    if duration <= .zero { return .some(nil) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return nil
                }
                switch resumeNow {
                case .some(.some(let error)): continuation.resume(throwing: error)
                case .some(.none): continuation.resume()
                case .none: break
                }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else {
                    state.cancelled.insert(id)  // not registered yet: refuse it when it arrives
                    return nil
                }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    func advance(to time: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = max(state.now, time)
            let due = state.sleepers.filter { $0.deadline <= state.now }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    func advance(by duration: Duration) {
        advance(to: now + duration)
    }
}

/// Waits (with short real sleeps) until `condition` holds; fails the test after `timeout`.
/// Only for waiting: no assertion depends on how long this takes.
func waitUntil(
    _ description: String,
    timeout: Duration = .seconds(10),
    file: StaticString = #filePath,
    line: UInt = #line,
    _ condition: () -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        guard clock.now < deadline else {
            XCTFail("timed out waiting until \(description)", file: file, line: line)
            throw CancellationError()
        }
        try await Task.sleep(for: .milliseconds(1))
    }
}
