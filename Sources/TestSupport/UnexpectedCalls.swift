import ComposableCore
import Synchronization

/// What dependencies' test values reported as unexpected calls while `body` ran, instead of
/// failing the test: for tests of the test values themselves. Afterwards unexpected calls fail
/// the running test again.
public func unexpectedCalls(
    isolation: isolated (any Actor)? = #isolation, during body: () async throws -> Void
) async rethrows -> [String] {
    let recorder = Recorder()
    UnexpectedCall.install { message in recorder.append(message) }
    defer { UnexpectedCall.failTests() }
    try await body()
    return recorder.messages
}

private final class Recorder: Sendable {
    private let recorded = Mutex<[String]>([])
    func append(_ message: String) { recorded.withLock { $0.append(message) } }
    var messages: [String] { recorded.withLock { $0 } }
}
