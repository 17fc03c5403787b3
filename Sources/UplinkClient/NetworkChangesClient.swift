import ComposableCore

/// The network perhaps coming back (a default route or a global address appeared; live: netlink),
/// so a retry waiting out its backoff can happen at once.
public struct NetworkChangesClient: Sendable {
    /// Starts watching; nil when the network cannot be watched (retries then wait their backoff).
    public var changes: @Sendable () -> AsyncStream<Void>?

    public init(changes: @escaping @Sendable () -> AsyncStream<Void>?) {
        self.changes = changes
    }

    public static let failing = NetworkChangesClient(changes: {
        UnexpectedCall.report("NetworkChangesClient.changes")
        return nil
    })
}
