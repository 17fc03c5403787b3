/// The runtime home of a feature: holds the state, runs the reducer for every action, runs effects.
///
/// Actions sent while an action is being reduced (from `.send` effects or observers) are buffered
/// and processed in order, never re-entrantly, so the reducer always sees one action at a time.
@MainActor
public final class Store<R: Reducer> {
    public private(set) var state: R.State
    private let reducer: R
    /// Actions waiting to be reduced, the next one last (taking it is O(1)).
    private var pending: [R.Action] = []
    private var isReducing = false
    private var observers: [(R.State, R.Action) -> Void] = []
    private lazy var runner = EffectRunner<R.Action> { [weak self] action in self?.send(action) }

    public init(initialState: R.State, reducer: R) {
        self.state = initialState
        self.reducer = reducer
    }

    /// Registers a callback run after every action with the new state (LED driver, logs, control
    /// socket), before that action's effects start.
    public func observe(_ observer: @escaping (R.State, R.Action) -> Void) {
        observers.append(observer)
    }

    /// Reduces `action` (and the actions its effects send synchronously) and starts its effects.
    /// The returned task covers the effects started while this call reduced; awaiting its
    /// `finish()` ties their lifetime to the caller's (as a service's run does).
    @discardableResult
    public func send(_ action: R.Action) -> StoreTask {
        guard !isReducing else {
            // Sent by an observer: after everything already waiting.
            pending.insert(action, at: 0)
            return StoreTask(tasks: [])
        }
        isReducing = true
        defer { isReducing = false }
        pending.append(action)
        var tasks: [Task<Void, Never>] = []
        while let next = pending.popLast() {
            let effect = reducer.reduce(into: &state, action: next)
            // Observers before the effects start: the LEDs show what an action did (an
            // acknowledgement above all) without waiting for its effects' tasks to be created.
            for observer in observers { observer(state, next) }
            let started = runner.start(effect)
            tasks += started.tasks
            pending.append(contentsOf: started.immediate.reversed())
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
