import ControlProtocol
import ControlSocket
import Foundation
import XCTest

extension RunningDevice {
    /// Sends `request` over the device's control socket as `lifesignalctl` does, and returns the
    /// answer. The client blocks, so it runs on a thread of its own, never on the main actor the
    /// device answers from.
    func request(_ request: ControlRequest) async throws -> ControlResponse {
        let line = ControlCoding.encode(request)
        let path = configuration.controlSocket
        let reply = await withCheckedContinuation { (continuation: CheckedContinuation<Result<String, ControlSocketError>, Never>) in
            Thread {
                continuation.resume(returning: Result { () throws(ControlSocketError) in
                    try ControlClient.send(line, to: path, timeout: .seconds(60))
                })
            }.start()
        }
        return try ControlCoding.decode(ControlResponse.self, from: try reply.get()).get()
    }

    /// `lifesignalctl check-in`: the check-in as stored, or the failure the device answered.
    @discardableResult
    func checkIn(file: StaticString = #filePath, line: UInt = #line) async throws -> CheckInReport {
        let response = try await request(ControlRequest(.checkIn))
        guard response.ok, let checkIn = response.checkIn else {
            XCTFail("check-in refused: \(response.error ?? "no reason")", file: file, line: line)
            throw ControlFailure(response.error ?? "check-in refused")
        }
        return checkIn
    }

    func status() async throws -> StatusReport {
        let response = try await request(ControlRequest(.status))
        guard let status = response.status else { throw ControlFailure(response.error ?? "no status") }
        return status
    }

    func queue() async throws -> QueueReport {
        let response = try await request(ControlRequest(.queue))
        guard let queue = response.queue else { throw ControlFailure(response.error ?? "no queue report") }
        return queue
    }
}

struct ControlFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
