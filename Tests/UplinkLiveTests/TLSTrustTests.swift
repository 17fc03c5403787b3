import CheckInModels
import Foundation
import Glibc
import UplinkClient
import TestSupport
import UplinkLive
import XCTest

/// A backend whose certificate the device does not trust is refused for good, with a message that
/// names the URL and says what to do. The server is `openssl s_server` on 127.0.0.1 with a
/// throwaway self-signed certificate made in the test's own directory.
final class TLSTrustTests: XCTestCase {
    var directory: TemporaryDirectory!
    var server: Process?

    override func setUpWithError() throws {
        directory = try TemporaryDirectory(prefix: "lifesignal-tls")
    }

    override func tearDown() {
        if let server, server.isRunning {
            // SIGKILL: the test process blocks SIGTERM, and a child inherits the blocked mask.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        directory = nil
    }

    private func run(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = Pipe()  // s_server reads commands from stdin: never a terminal, never EOF
        try process.run()
        return process
    }

    func testAnUntrustedCertificateIsAPermanentFailureNamingTheURL() async throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl") else { throw XCTSkip("openssl is not installed") }
        let keygen = try run(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                              "-keyout", "key.pem", "-out", "cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1",
                              "-addext", "subjectAltName=IP:127.0.0.1"])
        keygen.waitUntilExit()
        XCTAssertEqual(keygen.terminationStatus, 0, "openssl req made the throwaway certificate")
        let port = try freeLoopbackPort()
        server = try run(["s_server", "-accept", "127.0.0.1:\(port)", "-cert", "cert.pem", "-key", "key.pem", "-www", "-quiet"])
        try await waitUntil("openssl s_server listens") { loopbackAccepts(port: port) }

        let transport = try CurlTransport(threadName: "tls-test")
        defer { transport.shutdown(wait: true) }
        let baseURL = "https://127.0.0.1:\(port)"
        let client = UplinkClient.live(baseURL: baseURL, token: DeviceToken(secret: "secret-token"), timeout: .seconds(5),
                                       transport: transport)
        guard case let .failure(failure) = await client.uploadCheckIns(sampleCheckIns(1)) else {
            return XCTFail("a self-signed certificate was accepted")
        }
        XCTAssertEqual(failure.kind, .permanent, failure.message)
        XCTAssertNil(failure.httpStatus)
        XCTAssertTrue(failure.message.contains("\(baseURL)/v1/check-ins"), failure.message)
        XCTAssertTrue(failure.message.contains("not trusted"), failure.message)
        XCTAssertFalse(failure.message.contains("secret-token"), failure.message)
    }
}
