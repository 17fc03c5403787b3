import CheckInStoreLive
import ControlProtocol
import ControlSocket
import DevServer
import Foundation
import TestSupport
import XCTest

/// Power loss while uploading: the real daemon takes check-ins and uploads them to the reference
/// server (in this process, over loopback HTTP) while it is SIGKILLed at seeded random points —
/// in the middle of a check-in write, the instant an acknowledgement arrives, while an upload is
/// in flight (the server has the request but has not stored it), and just after the server stored a
/// batch (its acknowledgement may not have reached the device: the lost-acknowledgement case).
/// After a last start lets the uploads drain: the device's queue is empty, its file passes
/// `PRAGMA integrity_check`, and the server holds every check-in the device stored — every
/// acknowledged one among them — exactly once.
///
/// `LIFESIGNAL_UPLOAD_POWER_LOSS_KILLS` sets the number of kills (default 120, about a minute here);
/// `LIFESIGNAL_POWER_LOSS_SEED` the seed.
final class UploadPowerLossTests: XCTestCase {
    static let deviceID = "power-loss-device"
    static let token = "power-loss-token-0123456789"

    enum KillPoint: CaseIterable {
        case duringWrites, afterAcknowledgement, uploadInFlight, afterServerStored
    }

    func testEveryAcknowledgedCheckInReachesTheServerExactlyOnceDespiteSIGKILLDuringUploads() throws {
        let environment = ProcessInfo.processInfo.environment
        let kills = Int(environment["LIFESIGNAL_UPLOAD_POWER_LOSS_KILLS"] ?? "") ?? 120
        let seed = UInt64(environment["LIFESIGNAL_POWER_LOSS_SEED"] ?? "") ?? 0x5EED_CAFE
        var random = SeededRandom(state: seed)

        // A little latency keeps each upload in flight long enough to be cut off in the middle.
        let server = try makeServer(device: Self.deviceID, token: Self.token, faults: FaultUpdate(latencyMilliseconds: 5))
        let device = try makeDevice(url: server.baseURL)

        var acknowledged: [String] = []
        var killsAt: [KillPoint: Int] = [:]
        for _ in 0..<kills {
            try device.start(waitingWith: { (try? ControlClient.send(statusRequest, to: device.socketPath)) != nil })
            let pid = try XCTUnwrap(device.daemon?.processIdentifier)
            let point = KillPoint.allCases[Int(random.next() % UInt64(KillPoint.allCases.count))]
            killsAt[point, default: 0] += 1
            let uploadsBefore = server.stats.requestsByOperation["POST /v1/check-ins"] ?? 0
            let batchesBefore = server.stats.checkInBatches
            let stream = CheckInStream(
                socket: device.socketPath,
                killAfterAcknowledgement: point == .afterAcknowledgement ? Int(random.next() % 40) + 1 : nil,
                daemon: pid)
            stream.start()
            switch point {
            case .afterAcknowledgement:
                break  // the client thread kills
            case .duringWrites:
                usleep(useconds_t(2_000 + random.next() % 80_000))
                kill(pid, SIGKILL)
            case .uploadInFlight:
                waitBriefly { (server.stats.requestsByOperation["POST /v1/check-ins"] ?? 0) > uploadsBefore }
                usleep(useconds_t(random.next() % 4_000))  // within the server's 5 ms before it stores
                kill(pid, SIGKILL)
            case .afterServerStored:
                waitBriefly { server.stats.checkInBatches > batchesBefore }
                kill(pid, SIGKILL)
            }
            let result = stream.finish()
            device.reap()
            acknowledged += result.acknowledged
            XCTAssertNil(result.unexpected, "the daemon refused a check-in instead of storing it")
        }

        // A last, undisturbed start drains what is left.
        try device.start()
        try device.waitUntil("the upload queue has drained", timeout: 120) { try device.status().queueDepth == 0 }
        XCTAssertEqual(device.stop(), 0)

        let storePath = device.storePath
        let database = try awaitResult { try await CheckInDatabase.open(path: storePath) }
        XCTAssertEqual(try awaitResult { try await database.integrityCheck() }, ["ok"])
        XCTAssertEqual(try awaitResult { try await database.pendingUploadCount() }, 0, "the device's queue is empty")
        let storedOnDevice = try awaitResult { try await database.history(limit: Int.max) }.map(\.id.description)
        let onServer = try server.storedCheckIns(device: Self.deviceID)
        let serverIDs = onServer.map(\.checkIn.id)
        XCTAssertEqual(Set(serverIDs).count, serverIDs.count, "an id is stored twice on the server")
        // Differences, not the two whole sets: a failure then lists only the ids at fault.
        XCTAssertEqual(Set(storedOnDevice).subtracting(serverIDs).sorted(), [], "stored on the device, never on the server")
        XCTAssertEqual(Set(serverIDs).subtracting(storedOnDevice).sorted(), [], "on the server, unknown to the device")
        let missing = acknowledged.filter { !Set(serverIDs).contains($0) }
        XCTAssertEqual(missing, [], "acknowledged check-ins that never reached the server")
        XCTAssertGreaterThan(acknowledged.count, kills, "the harness barely exercised the daemon")
        let resent = onServer.filter { $0.receipts > 1 }.count
        XCTAssertGreaterThan(server.stats.checkInBatches, kills / 4, "the kills rarely met an upload")

        let byPoint = KillPoint.allCases.map { "\($0) \(killsAt[$0] ?? 0)" }.joined(separator: ", ")
        print("upload power loss: survived \(kills) SIGKILLs (\(byPoint)); \(acknowledged.count) check-ins acknowledged, "
            + "\(storedOnDevice.count) stored on the device, \(serverIDs.count) on the server (each once), \(missing.count) "
            + "missing; \(resent) were sent again after a lost acknowledgement; \(server.stats.checkInBatches) batches; seed \(seed)")
    }

    /// A daemon uploading to `url` in small batches, retrying within a second.
    private func makeDevice(url: String) throws -> DaemonHarness {
        try DaemonHarness.uplinked(to: url, token: Self.token, for: self, extra: "batch_size = 20", logLevel: "warning")
    }

    /// Polls for up to 2 s: a kill point that never comes (no upload started) just kills later.
    private func waitBriefly(_ condition: () -> Bool) {
        let deadline = Date().addingTimeInterval(2)
        while !condition(), Date() < deadline { usleep(200) }
    }
}
