import DevServer
import TestSupport
import UplinkClient
import UplinkLive
import XCTest

extension LoopbackBackend {
    /// The live client for this backend, with `token`, over `transport`.
    func client(token: String = LoopbackBackend.token, timeout: Duration = .seconds(5), transport: CurlTransport) -> UplinkClient {
        UplinkClient.live(baseURL: baseURL, token: DeviceToken(secret: token), timeout: timeout, transport: transport)
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}

/// The failure a call ended with; a test failure (thrown) when it succeeded.
func failure<T>(of result: Result<T, UplinkFailure>, file: StaticString = #filePath, line: UInt = #line) throws -> UplinkFailure {
    try XCTUnwrap(result.failure, "expected a failure, got \(result)", file: file, line: line)
}
