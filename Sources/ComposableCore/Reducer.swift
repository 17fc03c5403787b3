/// A feature's logic: how an action changes the state and which effects it starts.
///
/// Modelled on The Composable Architecture's `Reducer`, kept to what the device needs: `reduce` is a
/// pure function of the state and the action (dependencies are the reducer's stored properties), so
/// every decision can be tested by stepping actions through a `TestStore`.
public protocol Reducer<State, Action> {
    associatedtype State
    associatedtype Action: Sendable

    func reduce(into state: inout State, action: Action) -> Effect<Action>
}
