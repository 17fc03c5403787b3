/// What `lifesignalctl pair` prints on a person's device and `lifesignalctl dependents add CODE`
/// takes on a watcher: enough for the watcher to find the person and to name them.
public struct PairingCode: Hashable, Sendable {
    public var source: DependentSource
    /// The person's name as their device gives it; the watcher may choose another (`--name`).
    public var name: String
    /// How long the watcher waits for word from their device before showing them `silent`.
    public var heartbeat: Duration

    public init(source: DependentSource, name: String, heartbeat: Duration) {
        self.source = source
        self.name = name
        self.heartbeat = heartbeat
    }

    /// The code as text (placeholder until the pairing format lands).
    public var text: String { "LS1-\(source.kind)-\(source.address)-\(name)" }

    public init(parsing text: String) throws(PairingCodeError) {
        throw PairingCodeError(text: text, problem: "pairing codes are not implemented yet")
    }
}

/// A code that is not a LifeSignal pairing code, or is damaged.
public struct PairingCodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public var text: String
    public var problem: String

    public init(text: String, problem: String) {
        self.text = text
        self.problem = problem
    }

    public var description: String { "'\(text)' is not a pairing code: \(problem)" }
}
