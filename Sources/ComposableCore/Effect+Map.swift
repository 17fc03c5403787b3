extension Effect {
    /// The same work, reporting its actions as a parent's: how a child feature's effects run inside
    /// a parent (`Scope`). Cancellation ids are kept as they are.
    @inlinable
    public func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> Effect<Parent> {
        Effect<Parent>(operation: operation.map(transform))
    }

    /// The same work with every cancellation id prefixed by `namespace`, so that two instances of
    /// one feature (an uploader per queue, say) never cancel each other's effects.
    @inlinable
    public func namespaced(_ namespace: String) -> Effect {
        Effect(operation: operation.namespaced(namespace))
    }
}

extension Effect.Operation {
    @inlinable
    func map<Parent: Sendable>(_ transform: @escaping @Sendable (Action) -> Parent) -> Effect<Parent>.Operation {
        switch self {
        case .none:
            return .none
        case let .send(action):
            return .send(transform(action))
        case let .run(operation):
            return .run { send in
                await operation(Send<Action> { action in send.deliver(transform(action)) })
            }
        case let .merge(effects):
            return .merge(effects.map { $0.map(transform) })
        case let .cancellable(effect, id, cancelInFlight):
            return .cancellable(effect.map(transform), id: id, cancelInFlight: cancelInFlight)
        case let .cancel(id):
            return .cancel(id)
        }
    }

    @inlinable
    func namespaced(_ namespace: String) -> Effect.Operation {
        switch self {
        case .none, .send, .run:
            return self
        case let .merge(effects):
            return .merge(effects.map { $0.namespaced(namespace) })
        case let .cancellable(effect, id, cancelInFlight):
            return .cancellable(effect.namespaced(namespace), id: id.inside(namespace), cancelInFlight: cancelInFlight)
        case let .cancel(id):
            return .cancel(id.inside(namespace))
        }
    }
}

extension EffectID {
    /// This id as seen from a parent that scoped the feature under `namespace`.
    @inlinable
    public func inside(_ namespace: String) -> EffectID {
        EffectID("\(namespace)/\(name)")
    }
}
