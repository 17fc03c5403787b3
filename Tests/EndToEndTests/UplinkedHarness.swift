import Foundation
import XCTest

extension DaemonHarness {
    /// A daemon whose `[uplink]` points at `url`, with its token file (mode 0600) in place; the file
    /// goes when `test` ends.
    static func uplinked(to url: String, token: String, for test: XCTestCase, extra: String = "",
                         logLevel: String = "debug") throws -> DaemonHarness {
        let tokenPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("lifesignal-e2e-token-\(UUID().uuidString)").path
        try "\(token)\n".write(toFile: tokenPath, atomically: false, encoding: .utf8)
        XCTAssertEqual(chmod(tokenPath, 0o600), 0)
        test.addTeardownBlock { try? FileManager.default.removeItem(atPath: tokenPath) }
        return try DaemonHarness(interval: "1h", reminder: "10m", config: """

            [uplink]
            url = "\(url)"
            token_file = "\(tokenPath)"
            retry_max = "1s"
            timeout = "5s"
            \(extra)
            """, logLevel: logLevel)
    }
}
