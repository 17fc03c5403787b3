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

    /// Starts an effect. Synchronous `.send` actions are returned in order for the store to process
    /// right away; everything asynchronous is started as a task.
    public func start(_ effect: Effect<Action>) -> [Action] {
        var immediate: [Action] = []
        start(effect, ids: [], into: &immediate)
        return immediate
    }

    private func start(_ effect: Effect<Action>, ids: [EffectID], into immediate: inout [Action]) {
        switch effect.operation {
        case .none:
            return
        case let .send(action):
            immediate.append(action)
        case let .merge(effects):
            for effect in effects { start(effect, ids: ids, into: &immediate) }
        case let .cancel(id):
            cancel(id)
        case let .cancellable(inner, id, cancelInFlight):
            if cancelInFlight { cancel(id) }
            start(inner, ids: ids + [id], into: &immediate)
        case let .run(operation):
            launch(operation, ids: ids)
        }
    }

    private func launch(_ operation: @escaping @Sendable (Send<Action>) async -> Void, ids: [EffectID]) {
        let token = nextToken
        nextToken += 1
        let send = Send<Action>(deliver)
        running[token] = Task { [weak self] in
            await operation(send)
            self?.finished(token, ids: ids)
        }
        for id in ids { cancellable[id, default: []].insert(token) }
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
