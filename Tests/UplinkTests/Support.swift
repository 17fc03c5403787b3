import CheckInModels
import CheckInStoreLive
import DevServer
import Foundation
import UplinkClient
import UplinkLive
import XCTest

/// A dev server on a free loopback port with one device, in its own temporary directory.
final class LoopbackBackend {
    static let device = "device-1"
    static let token = "token-for-device-1"
    let directory: URL
    let server: DevServer

    init(faults: FaultUpdate = FaultUpdate()) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifesignal-uplink-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        server = try DevServer(DevServer.Options(
            databasePath: directory.appendingPathComponent("server.sqlite").path,
            tokens: [Self.token: Self.device], faults: faults))
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func client(token: String = LoopbackBackend.token, timeout: Duration = .seconds(5), transport: CurlTransport) -> UplinkClient {
        UplinkClient.live(baseURL: server.baseURL, token: DeviceToken(secret: token), timeout: timeout, transport: transport)
    }

    func storedIDs() throws -> [String] {
        try server.storedCheckIns(device: Self.device).map(\.checkIn.id)
    }
}

/// Check-ins as the device would have stored them, one millisecond apart.
func sampleCheckIns(_ count: Int, startingAt start: Int64 = 1_795_000_000_000_000) -> [CheckInRecord] {
    (0..<count).map { (index: Int) -> CheckInRecord in
        let wall = WallTime(microsecondsSinceEpoch: start + Int64(index) * 1000)
        let instant = DeviceInstant(wall: wall, uptime: Duration.seconds(100 + index), bootID: "6c1b1f0e-test-boot",
                                    wallClockSynchronized: index % 2 == 0)
        let source: CheckInSource = index % 3 == 0 ? .cli : .button
        return CheckInRecord(id: CheckInID.random(), at: instant, source: source)
    }
}

/// Polls `condition` until it holds (waiting for the code under test, never timing it).
func waitUntil(_ what: String, timeout: TimeInterval = 20, file: StaticString = #filePath, line: UInt = #line,
               isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool) async throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return }
        try await Task.sleep(nanoseconds: 10_000_000)
    }
    XCTFail("timed out waiting until \(what)", file: file, line: line)
}
