/// Runs effects as tasks on behalf of a store: tracks what is in flight and what can be cancelled.
///
/// Shared by `Store` and the test store so that tests exercise the very same effect semantics.
@MainActor
public final class EffectRunner<Action: Sendable> {
    private var nextToken = 0
    private var running: [Int: Task<Void, Never>] = [:]
    private var cancellable: [EffectID: Set<Int>] = [:]
    private let deliver: @MainActor @Sendable (Action) -> Void

    /// `deliver` receives actions sent by effects (and by `.send`).
    public init(deliver: @escaping @MainActor @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    /// How many effect tasks have not finished yet.
    public var inFlightCount: Int { running.count }

    /// Ids of cancellable effects still running.
    public var inFlightIDs: [EffectID] { cancellable.filter { !$0.value.isEmpty }.map(\.key) }

    /// What starting an effect did: actions to process right away, and the tasks it launched.
    public struct Started {
        /// Synchronous `.send` actions, in order, for the store to process before anything else.
        public var immediate: [Action] = []
        public var tasks: [Task<Void, Never>] = []
    }

    /// Starts an effect. Synchronous `.send` actions are returned in order for the store to process
    /// right away; everything asynchronous is started as a task (on the main actor: an effect's
    /// work hops elsewhere only where a client's implementation does).
    public func start(_ effect: Effect<Action>) -> Started {
        var started = Started()
        start(effect, ids: [], into: &started)
        return started
    }

    private func start(_ effect: Effect<Action>, ids: [EffectID], into started: inout Started) {
        switch effect.operation {
        case .none:
            return
        case let .send(action):
            started.immediate.append(action)
        case let .merge(effects):
            for effect in effects { start(effect, ids: ids, into: &started) }
        case let .cancel(id):
            cancel(id)
        case let .cancellable(inner, id, cancelInFlight):
            if cancelInFlight { cancel(id) }
            start(inner, ids: ids + [id], into: &started)
        case let .run(operation):
            started.tasks.append(launch(operation, ids: ids))
        }
    }

    private func launch(_ operation: @escaping @Sendable (Send<Action>) async -> Void, ids: [EffectID]) -> Task<Void, Never> {
        let token = nextToken
        nextToken += 1
        let send = Send<Action>(deliver)
        let task = Task { [weak self] in
            await operation(send)
            self?.finished(token, ids: ids)
        }
        running[token] = task
        for id in ids { cancellable[id, default: []].insert(token) }
        return task
    }

    /// The running tasks of the effects marked `id` (to wait for one that must finish).
    public func tasks(withID id: EffectID) -> [Task<Void, Never>] {
        (cancellable[id] ?? []).compactMap { running[$0] }
    }

    private func finished(_ token: Int, ids: [EffectID]) {
        running[token] = nil
        for id in ids {
            cancellable[id]?.remove(token)
            if cancellable[id]?.isEmpty == true { cancellable[id] = nil }
        }
    }

    /// Cancels every running effect marked `id`.
    public func cancel(_ id: EffectID) {
        guard let tokens = cancellable.removeValue(forKey: id) else { return }
        for token in tokens { running[token]?.cancel() }
    }

    /// Cancels everything (used when a store goes away).
    public func cancelAll() {
        for task in running.values { task.cancel() }
        cancellable.removeAll()
    }

    /// Waits until no effect is running (effects started meanwhile are waited for too).
    public func waitUntilIdle() async {
        while let task = running.values.first {
            await task.value
            // The finishing task removes itself on the main actor right after its body returns.
            await Task.yield()
        }
    }
}
