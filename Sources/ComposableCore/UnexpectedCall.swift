import Synchronization

/// What a dependency's test value does when it is called without being overridden: it reports the
/// call, so a test fails instead of running on a plausible default it never asked for.
///
/// The test support installs a reporter that fails the running test; without one (a failing value
/// used outside a test) the call stops the process, since it can only be a wiring mistake.
public enum UnexpectedCall {
    private static let reporter = Mutex<(@Sendable (String) -> Void)?>(nil)

    /// Sets how unexpected calls are reported (the test support's `XCTFail`).
    public static func install(_ report: @escaping @Sendable (String) -> Void) {
        reporter.withLock { $0 = report }
    }

    public static func report(_ name: String) {
        let message = "Unexpected call to \(name): override it in this test if the test means to use it."
        guard let report = reporter.withLock({ $0 }) else { fatalError(message) }
        report(message)
    }
}

/// The error a failing test value throws after reporting the call.
public struct UnimplementedError: Error, Hashable, Sendable, CustomStringConvertible {
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public var description: String { "\(name) is not implemented in this test" }
}
