/// Lets the control socket wait for a feature's answer to what it asked (a stored check-in, a
/// saved or refused setting, a stored notification change). The store's observer hands every
/// delegate action to `deliver`.
@MainActor
final class DelegateWaiters<Delegate: Sendable> {
    private struct Waiter {
        let id: Int
        let accepts: (Delegate) -> Bool
        let continuation: CheckedContinuation<Delegate?, Never>
    }

    private var waiters: [Waiter] = []
    private var nextID = 0

    /// Waits for the first delegate action `accepts` takes, or nil after `timeout`.
    /// `trigger` runs once the waiter is registered, so an answer sent synchronously is not missed.
    func wait(
        for accepts: @escaping (Delegate) -> Bool,
        timeout: Duration,
        sleep: @escaping @Sendable (Duration) async throws -> Void,
        trigger: () -> Void
    ) async -> Delegate? {
        let id = nextID
        nextID += 1
        let timer = Task { [weak self] in
            try? await sleep(timeout)
            self?.expire(id)
        }
        defer { timer.cancel() }
        return await withCheckedContinuation { continuation in
            waiters.append(Waiter(id: id, accepts: accepts, continuation: continuation))
            trigger()
        }
    }

    func deliver(_ delegate: Delegate) {
        let (taken, kept) = waiters.reduce(into: ([Waiter](), [Waiter]())) { split, waiter in
            if waiter.accepts(delegate) { split.0.append(waiter) } else { split.1.append(waiter) }
        }
        waiters = kept
        for waiter in taken { waiter.continuation.resume(returning: delegate) }
    }

    private func expire(_ id: Int) {
        guard let index = waiters.firstIndex(where: { $0.id == id }) else { return }
        waiters.remove(at: index).continuation.resume(returning: nil)
    }
}
