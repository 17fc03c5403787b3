import CheckInStoreLive
import ControlProtocol
import ControlSocket
import Foundation
import TestSupport
import XCTest

/// Power loss, simulated by SIGKILL: the real daemon takes check-ins as fast as one client can send
/// them and is killed at seeded random points — in the middle of the stream (mostly inside a write,
/// since the daemon is writing nearly all the time) or the instant an acknowledgement arrives —
/// then restarted. Afterwards every acknowledged check-in must be in the store, the file must pass
/// `PRAGMA integrity_check`, and no id may appear twice.
///
/// `LIFESIGNAL_POWER_LOSS_KILLS` sets the number of kills (default 300, about a minute and a half here);
/// `LIFESIGNAL_POWER_LOSS_SEED` the seed, so a failing run can be repeated exactly.
final class PowerLossTests: XCTestCase {
    func testEveryAcknowledgedCheckInSurvivesRepeatedSIGKILL() throws {
        let environment = ProcessInfo.processInfo.environment
        let kills = Int(environment["LIFESIGNAL_POWER_LOSS_KILLS"] ?? "") ?? 300
        let seed = UInt64(environment["LIFESIGNAL_POWER_LOSS_SEED"] ?? "") ?? 0x5EED_CAFE
        var random = SeededRandom(state: seed)

        let device = try DaemonHarness(interval: "1h", reminder: "10m", config: "", logLevel: "warning")
        var acknowledged: [String] = []
        var killedRightAfterAcknowledgement = 0

        for _ in 0..<kills {
            try device.start(waitingWith: { (try? ControlClient.send(statusRequest, to: device.socketPath)) != nil })
            let pid = try XCTUnwrap(device.daemon?.processIdentifier)
            // Either kill from the client thread the moment the n-th acknowledgement is read, or
            // from here after a random delay while the client keeps the daemon writing.
            let afterAcknowledgement = random.next() % 3 == 0
            let stream = CheckInStream(
                socket: device.socketPath,
                killAfterAcknowledgement: afterAcknowledgement ? Int(random.next() % 60) + 1 : nil,
                daemon: pid
            )
            stream.start()
            if !afterAcknowledgement {
                usleep(useconds_t(2_000 + random.next() % 120_000))
                kill(pid, SIGKILL)
            } else {
                killedRightAfterAcknowledgement += 1
            }
            let result = stream.finish()
            device.reap()
            acknowledged += result.acknowledged
            XCTAssertNil(result.unexpected, "the daemon refused a check-in instead of storing it")
        }

        // Read the file the way the next start will (the daemon is dead: no other writer).
        let storePath = device.storePath
        let database = try awaitResult { try await CheckInDatabase.open(path: storePath) }
        let integrity = try awaitResult { try await database.integrityCheck() }
        XCTAssertEqual(integrity, ["ok"])
        let stored = try awaitResult { try await database.history(limit: Int.max) }.map(\.id.description)
        let storedSet = Set(stored)
        XCTAssertEqual(storedSet.count, stored.count, "an id appears twice in the store")
        let lost = acknowledged.filter { !storedSet.contains($0) }
        XCTAssertEqual(lost, [], "acknowledged check-ins missing after power loss")
        XCTAssertEqual(Set(acknowledged).count, acknowledged.count, "one id was acknowledged twice")
        // Writes that were cut off before their acknowledgement may or may not have landed.
        XCTAssertGreaterThanOrEqual(stored.count, acknowledged.count)
        XCTAssertGreaterThan(acknowledged.count, kills, "the harness barely exercised the store")

        print("power loss: survived \(kills) SIGKILLs (\(killedRightAfterAcknowledgement) right after an "
            + "acknowledgement), \(acknowledged.count) check-ins acknowledged, \(lost.count) of them lost, "
            + "\(stored.count) rows stored, integrity \(integrity.joined(separator: "; ")), seed \(seed)")
    }
}

let statusRequest = ControlCoding.encode(ControlRequest(.status))

/// One client sending check-ins back to back on its own thread until the daemon stops answering.
/// Strictly one request at a time, so every acknowledgement names its own check-in.
final class CheckInStream: @unchecked Sendable {
    struct Result {
        var acknowledged: [String] = []
        /// A well-formed refusal (the daemon answered "not saved"): a failure of the store, not a kill.
        var unexpected: String?
    }

    private let socket: String
    private let killAfterAcknowledgement: Int?
    private let daemon: pid_t
    private let done = DispatchSemaphore(value: 0)
    private var result = Result()

    init(socket: String, killAfterAcknowledgement: Int?, daemon: pid_t) {
        self.socket = socket
        self.killAfterAcknowledgement = killAfterAcknowledgement
        self.daemon = daemon
    }

    func start() {
        Thread.detachNewThread { [self] in
            run()
            done.signal()
        }
    }

    func finish() -> Result {
        done.wait()
        return result
    }

    private func run() {
        let request = ControlCoding.encode(ControlRequest(.checkIn))
        while true {
            // A dead daemon shows as a refused connection, a reset or a closed connection.
            guard let line = try? ControlClient.send(request, to: socket, timeout: .seconds(20)) else { return }
            switch ControlCoding.decode(ControlResponse.self, from: line) {
            case let .success(response) where response.ok:
                guard let id = response.checkIn?.id else {
                    result.unexpected = "an ok answer without a check-in: \(line)"
                    return
                }
                result.acknowledged.append(id)
                if let limit = killAfterAcknowledgement, result.acknowledged.count >= limit {
                    kill(daemon, SIGKILL)
                    return
                }
            case .success, .failure:
                result.unexpected = line
                return
            }
        }
    }
}

/// Runs an async call to completion from synchronous test code.
func awaitResult<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.value = .success(try await body()) } catch { box.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.value!.get()
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: Swift.Result<T, any Error>?
}
