import DevServer
import Foundation
import TestSupport
import XCTest

extension DaemonHarness {
    /// A daemon whose `[uplink]` points at `url`, with its token file (mode 0600) in place; the file
    /// goes when `test` ends.
    static func uplinked(to url: String, token: String, for test: XCTestCase, extra: String = "",
                         logLevel: String = "debug") throws -> DaemonHarness {
        try DaemonHarness(interval: "1h", reminder: "10m", config: """

            \(try test.uplinkSection(to: url, token: token))
            \(extra)
            """, logLevel: logLevel)
    }
}

extension XCTestCase {
    /// The reference backend on a free loopback port, knowing `device` by `token`; it stops, and
    /// its files go, when the test ends.
    func makeServer(device: String, token: String, faults: FaultUpdate = FaultUpdate()) throws -> DevServer {
        let backend = try LoopbackBackend(tokens: [token: device], faults: faults)
        addTeardownBlock { backend.stop() }
        return backend.server
    }

    /// An `[uplink]` table pointing at `url` with a token file holding `token` (retrying after at
    /// most 1 s, a 5 s timeout: margins for a loaded CI machine).
    func uplinkSection(to url: String, token: String) throws -> String {
        """
        [uplink]
        url = "\(url)"
        token_file = "\(try tokenFile(token))"
        retry_max = "1s"
        timeout = "5s"
        """
    }

    /// A token file (mode 0600) holding `token`, removed when the test ends.
    func tokenFile(_ token: String) throws -> String {
        let directory = try TemporaryDirectory(prefix: "lifesignal-e2e-token")
        let path = try directory.write("token", "\(token)\n", mode: 0o600)
        addTeardownBlock { directory.remove() }
        return path
    }
}
