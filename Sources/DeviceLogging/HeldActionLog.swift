public import ComposableCore

/// A store's log: each action's lines, from the state before and after it, written in order. While
/// `holds` is true of the state (a check-in being written), an action's lines wait and are worked
/// out later: comparing the states is work for the one thread that reduces actions, and done at
/// once it stands between the button's release and the store's write, in front of the
/// acknowledgement (docs/architecture.md). What is held is written, in order, after the first
/// action that holds no more, or once `limit` actions are held, so a store that does not answer
/// delays the log by a bounded number of actions and never silences it.
public final class HeldActionLog<State, Action> {
    public typealias Entries = (_ action: Action, _ before: State, _ after: State) -> [LogEntry]

    private let entries: Entries
    private let holds: (State) -> Bool
    private let write: ([LogEntry]) -> Void
    private let limit: Int
    private var previous: State
    private var held: [(action: Action, after: State)] = []

    public init(initial: State, limit: Int = 32, holds: @escaping (State) -> Bool,
                entries: @escaping Entries, write: @escaping ([LogEntry]) -> Void) {
        precondition(limit > 0, "a log that holds must write at some point")
        previous = initial
        self.limit = limit
        self.holds = holds
        self.entries = entries
        self.write = write
    }

    /// The number of actions whose lines wait.
    public var heldCount: Int { held.count }

    /// `action` has been reduced to `state`.
    public func record(_ action: Action, after state: State) {
        held.append((action, state))
        if holds(state) && held.count < limit { return }
        flush()
    }

    /// Writes what is held.
    public func flush() {
        for (action, after) in held {
            write(entries(action, previous, after))
            previous = after
        }
        held.removeAll(keepingCapacity: true)
    }
}
