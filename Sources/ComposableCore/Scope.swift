/// How a parent's action carries a child's: the enum case that wraps it, as a pair of functions
/// (the role of a case path in The Composable Architecture, without its macro).
public struct ActionCase<Parent, Child>: Sendable {
    public let embed: @Sendable (Child) -> Parent
    public let extract: @Sendable (Parent) -> Child?

    public init(embed: @escaping @Sendable (Child) -> Parent, extract: @escaping @Sendable (Parent) -> Child?) {
        self.embed = embed
        self.extract = extract
    }
}

/// Runs a child feature on a part of the parent's state: the child sees only its own state and its
/// own actions, and its effects report back as parent actions. `namespace` keeps the effect ids of
/// two instances of one feature apart.
public struct Scope<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
    @usableFromInline let state: WritableKeyPath<ParentState, Child.State>
    @usableFromInline let action: ActionCase<ParentAction, Child.Action>
    @usableFromInline let namespace: String?
    @usableFromInline let child: Child

    public init(
        state: WritableKeyPath<ParentState, Child.State>, action: ActionCase<ParentAction, Child.Action>,
        namespace: String? = nil, child: Child
    ) {
        self.state = state
        self.action = action
        self.namespace = namespace
        self.child = child
    }

    @inlinable
    public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
        guard let childAction = self.action.extract(action) else { return .none }
        let effect = child.reduce(into: &state[keyPath: self.state], action: childAction)
        return (namespace.map { effect.namespaced($0) } ?? effect).map(self.action.embed)
    }
}

/// `Scope` for a child that exists only in some configurations (an uploader on a device with an
/// uplink): while its state is nil its actions are ignored and nothing runs.
public struct ScopeIfPresent<ParentState, ParentAction: Sendable, Child: Reducer>: Reducer {
    @usableFromInline let state: WritableKeyPath<ParentState, Child.State?>
    @usableFromInline let action: ActionCase<ParentAction, Child.Action>
    @usableFromInline let namespace: String?
    @usableFromInline let child: Child?

    /// `child` is nil when the feature is not configured; its state should then be nil too.
    public init(
        state: WritableKeyPath<ParentState, Child.State?>, action: ActionCase<ParentAction, Child.Action>,
        namespace: String? = nil, child: Child?
    ) {
        self.state = state
        self.action = action
        self.namespace = namespace
        self.child = child
    }

    @inlinable
    public func reduce(into state: inout ParentState, action: ParentAction) -> Effect<ParentAction> {
        guard let child, let childAction = self.action.extract(action), var childState = state[keyPath: self.state]
        else { return .none }
        let effect = child.reduce(into: &childState, action: childAction)
        state[keyPath: self.state] = childState
        return (namespace.map { effect.namespaced($0) } ?? effect).map(self.action.embed)
    }
}
