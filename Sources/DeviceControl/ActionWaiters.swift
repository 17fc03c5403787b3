/// Lets the control socket wait for the device's answer to what it asked (a stored check-in, a
/// saved or refused setting, a stored notification change): the store's observer hands every
/// action to `deliver`, and a waiter takes the first one it was waiting for.
@MainActor
public final class ActionWaiters<Action: Sendable> {
    private struct Waiter {
        let id: Int
        let accepts: (Action) -> Bool
        let continuation: CheckedContinuation<Action?, Never>
    }

    private var waiters: [Waiter] = []
    private var nextID = 0

    public init() {}

    /// Waits for the first action `accepts` takes, or nil after `timeout`. `trigger` runs once the
    /// waiter is registered, so an answer sent synchronously is not missed.
    func wait(
        for accepts: @escaping (Action) -> Bool,
        timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        trigger: () -> Void
    ) async -> Action? {
        let id = nextID
        nextID += 1
        // The timer is cancelled as soon as the answer comes, so it never outlives the request.
        let timer = Task { [weak self] in
            try? await sleep(timeout)
            if !Task.isCancelled { self?.expire(id) }
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, accepts: accepts, continuation: continuation))
            trigger()
        }
    }

    /// Hands an action to the waiters that take it.
    public func deliver(_ action: Action) {
        guard !waiters.isEmpty else { return }
        let (taken, kept) = waiters.reduce(into: ([Waiter](), [Waiter]())) { split, waiter in
            if waiter.accepts(action) { split.0.append(waiter) } else { split.1.append(waiter) }
        }
        waiters = kept
        for waiter in taken { waiter.continuation.resume(returning: action) }
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
