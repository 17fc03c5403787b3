/// The runtime home of a feature: holds the state, runs the reducer for every action, runs effects.
///
/// Actions sent while an action is being reduced (from `.send` effects or observers) are buffered
/// and processed in order, never re-entrantly, so the reducer always sees one action at a time.
@MainActor
public final class Store<R: Reducer> {
    public private(set) var state: R.State
    private let reducer: R
    private var buffer: [R.Action] = []
    private var isReducing = false
    private var observers: [(R.State, R.Action) -> Void] = []
    private lazy var runner = EffectRunner<R.Action> { [weak self] action in self?.send(action) }

    public init(initialState: R.State, reducer: R) {
        self.state = initialState
        self.reducer = reducer
    }

    /// Registers a callback run after every action with the new state (LED driver, logs, control socket).
    public func observe(_ observer: @escaping (R.State, R.Action) -> Void) {
        observers.append(observer)
    }

    /// Reduces `action` (and the actions its effects send synchronously) and starts its effects.
    /// The returned task covers the effects started while this call reduced; awaiting its
    /// `finish()` ties their lifetime to the caller's (as a service's run does).
    @discardableResult
    public func send(_ action: R.Action) -> StoreTask {
        buffer.append(action)
        guard !isReducing else { return StoreTask(tasks: []) }
        isReducing = true
        defer { isReducing = false }
        var tasks: [Task<Void, Never>] = []
        while !buffer.isEmpty {
            let next = buffer.removeFirst()
            let effect = reducer.reduce(into: &state, action: next)
            let started = runner.start(effect)
            tasks += started.tasks
            buffer.insert(contentsOf: started.immediate, at: 0)
            for observer in observers { observer(state, next) }
        }
        return StoreTask(tasks: tasks)
    }

    /// Waits until the effects marked `id` have finished (a durable write that must complete before
    /// shutdown goes on), without cancelling them.
    public func waitForEffects(withID id: EffectID) async {
        for task in runner.tasks(withID: id) { await task.value }
    }

    /// Number of effects still running (for shutdown: wait until writes have finished).
    public var inFlightEffectCount: Int { runner.inFlightCount }

    /// Waits until every running effect has finished.
    public func waitForEffects() async {
        await runner.waitUntilIdle()
    }

    /// Cancels every running effect.
    public func cancelAllEffects() {
        runner.cancelAll()
    }
}
