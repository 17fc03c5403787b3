import Synchronization

/// A long-running part of the daemon: `run()` starts it and returns once it has stopped. A service
/// waits for `gracefulShutdown()` and then lets go of what it holds; the tree asks services to shut
/// down one at a time, in the reverse of their start order.
public protocol Service: Sendable {
    func run() async throws
}

/// Returns once the tree asks the calling service to shut down; throws `CancellationError` if the
/// task is cancelled first. Outside a tree only cancellation ends it.
public func gracefulShutdown() async throws {
    guard let latch = ShutdownLatch.current else {
        try await ShutdownLatch().wait()  // never fired: waits for cancellation
        return
    }
    try await latch.wait()
}

/// Runs `operation` until it returns or the calling service is asked to shut down, whichever
/// comes first; on shutdown the operation is cancelled and awaited.
public func cancelWhenGracefulShutdown(_ operation: @escaping @Sendable () async -> Void) async {
    await withTaskGroup(of: Void.self) { group in
        group.addTask { await operation() }
        group.addTask { try? await gracefulShutdown() }
        await group.next()
        group.cancelAll()
    }
}

/// Fired once, when the tree asks one service to shut down; any number of waiters.
final class ShutdownLatch: Sendable {
    @TaskLocal static var current: ShutdownLatch?

    private struct State {
        var fired = false
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, any Error>] = [:]
    }

    private let state = Mutex(State())

    func fire() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard !state.fired else { return [] }
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async throws {
        let id = state.withLock { state in
            defer { state.nextWaiter += 1 }
            return state.nextWaiter
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let outcome = state.withLock { state -> Result<Void, CancellationError>? in
                    if state.fired { return .success(()) }
                    // Checked under the lock: a cancellation after this finds the waiter below.
                    if Task.isCancelled { return .failure(CancellationError()) }
                    state.waiters[id] = continuation
                    return nil
                }
                if let outcome { continuation.resume(with: outcome) }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }
}
