import DevServer
import Foundation
import Synchronization
import XCTest

/// Stopping the reference server: a request in progress is answered before `stop()` returns, so a
/// dev server process that exits right after its SIGTERM never cuts a reply off.
final class HTTPServerStopTests: XCTestCase {
    func testStopReturnsOnlyOnceTheRequestInProgressHasBeenAnswered() throws {
        // Which of stop() and the handler's answer comes first is up to the scheduler; a server
        // that does not wait loses that race often, so twenty tries show it.
        for attempt in 1...20 {
            let reply = try replyWaitingWhenStopReturns()
            XCTAssertTrue(reply.hasPrefix("HTTP/1.1 200 OK\r\n"), "attempt \(attempt): \(reply)")
            XCTAssertTrue(reply.hasSuffix("{\"answered\":true}"), "attempt \(attempt): \(reply)")
        }
    }

    /// Sends a request whose handler waits, calls stop() on another thread, lets the handler go,
    /// and returns what the client's socket held the moment stop() returned.
    private func replyWaitingWhenStopReturns() throws -> String {
        // The handler tells the test it is running, then waits on a pipe the test writes to.
        let entered = Pipe()
        let release = Pipe()
        let server = try HTTPServer(port: 0) { _ in
            entered.fileHandleForWriting.write(Data([1]))
            _ = release.fileHandleForReading.readData(ofLength: 1)
            return .respond(ServerResponse(status: 200, body: Array("{\"answered\":true}".utf8)))
        }
        let client = try connectedClient(port: server.port)
        defer { close(client) }
        let request = "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        XCTAssertEqual(request.utf8.count, request.withCString { send(client, $0, strlen($0), 0) })
        XCTAssertEqual(entered.fileHandleForReading.readData(ofLength: 1), Data([1]), "the handler is running")

        let answeredWhenStopReturned = Mutex<String?>(nil)
        let stopped = expectation(description: "stop() returned")
        Thread {
            server.stop()
            answeredWhenStopReturned.withLock { $0 = Self.readWithoutWaiting(client) }
            stopped.fulfill()
        }.start()
        release.fileHandleForWriting.write(Data([1]))
        wait(for: [stopped], timeout: 20)
        return try XCTUnwrap(answeredWhenStopReturned.withLock { $0 })
    }

    private func connectedClient(port: UInt16) throws -> Int32 {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard descriptor >= 0, connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        return descriptor
    }

    /// What the socket holds now ("" if nothing yet), without blocking.
    private static func readWithoutWaiting(_ descriptor: Int32) -> String {
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = bytes.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        return count > 0 ? String(decoding: bytes.prefix(count), as: UTF8.self) : ""
    }
}
