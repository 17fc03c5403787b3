import Synchronization

/// A door a fake dependency waits at while a test holds it shut: a request or a read that is "in
/// flight" until the test says it has finished. It ignores cancellation on purpose, as a request on
/// a transport thread does, so a test can show that an answer arriving after a stop is dropped.
public final class Gate: Sendable {
    private let state = Mutex<(shut: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func shut() { state.withLock { $0.shut = true } }

    /// Lets everyone waiting through, and everyone after them.
    public func open() {
        let waiting = state.withLock { state in
            state.shut = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// How many are waiting at the gate.
    public var waiting: Int { state.withLock { $0.waiting.count } }

    public func pass() async {
        await withCheckedContinuation { continuation in
            let through = state.withLock { state in
                guard state.shut else { return true }
                state.waiting.append(continuation)
                return false
            }
            if through { continuation.resume() }
        }
    }
}
