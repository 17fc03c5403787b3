/// Work a reducer asks for, described as a value so tests can see and drive it.
public struct Effect<Action: Sendable>: Sendable {
    @usableFromInline
    indirect enum Operation: Sendable {
        case none
        /// Feed an action back into the store right after the current one.
        case send(Action)
        case run(@Sendable (Send<Action>) async -> Void)
        case merge([Effect])
        case cancellable(Effect, id: EffectID, cancelInFlight: Bool)
        case cancel(EffectID)
    }

    @usableFromInline
    let operation: Operation

    @usableFromInline
    init(operation: Operation) {
        self.operation = operation
    }

    /// No work.
    @inlinable
    public static var none: Effect { Effect(operation: .none) }

    /// Sends an action synchronously after the current one, before any asynchronous work.
    @inlinable
    public static func send(_ action: Action) -> Effect { Effect(operation: .send(action)) }

    /// Asynchronous work that reports back through `send`.
    public static func run(_ operation: @escaping @Sendable (Send<Action>) async -> Void) -> Effect {
        Effect(operation: .run(operation))
    }

    /// Several effects at once.
    @inlinable
    public static func merge(_ effects: Effect...) -> Effect { merge(effects) }

    @inlinable
    public static func merge(_ effects: [Effect]) -> Effect {
        let work = effects.filter { if case .none = $0.operation { false } else { true } }
        return work.isEmpty ? .none : Effect(operation: .merge(work))
    }

    /// Cancels every running effect marked with `id`.
    public static func cancel(id: EffectID) -> Effect { Effect(operation: .cancel(id)) }

    /// Marks this effect so it can be cancelled; `cancelInFlight` first cancels earlier ones with that id.
    public func cancellable(id: EffectID, cancelInFlight: Bool = false) -> Effect {
        Effect(operation: .cancellable(self, id: id, cancelInFlight: cancelInFlight))
    }
}

/// The name of a cancellable effect.
public struct EffectID: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public init(_ name: String) { self.name = name }
    public var description: String { name }
}

/// How a running effect reports back. Sends after the effect was cancelled are dropped, so a
/// cancelled timer can never deliver a stale action.
public struct Send<Action: Sendable>: Sendable {
    @usableFromInline
    let deliver: @MainActor @Sendable (Action) -> Void

    public init(_ deliver: @escaping @MainActor @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    @MainActor
    public func callAsFunction(_ action: Action) {
        guard !Task.isCancelled else { return }
        deliver(action)
    }
}
