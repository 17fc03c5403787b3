import CheckInModels
import CheckInStoreClient
import Synchronization

/// An in-memory stand-in for the SQLite store, for feature tests only (the real store has its own
/// tests on real files). Writes can be held open to test presses during a pending write, and can be
/// made to fail.
final class FakeCheckInStore: Sendable {
    struct Contents {
        var records: [CheckInRecord] = []
        /// Ping responses written with their check-in (in the same "transaction": all or nothing).
        var pingResponses: [PingResponse] = []
        var settings: StoredSettings?
        var writeAttempts = 0
        var failNextWrites: StoreFailure?
        var heldWrite: CheckedContinuation<Void, Never>?
        var holdWrites = false
    }

    let contents: Mutex<Contents>

    init(records: [CheckInRecord] = [], settings: StoredSettings? = nil) {
        contents = Mutex(Contents(records: records, settings: settings))
    }

    var client: CheckInStoreClient {
        CheckInStoreClient(
            record: { [self] checkIn throws(StoreFailure) in try await write(checkIn, answering: []) },
            history: { [self] limit in contents.withLock { Array($0.records.prefix(limit)) } },
            loadSettings: { [self] in contents.withLock { $0.settings } },
            saveSettings: { [self] settings in contents.withLock { $0.settings = settings } },
            pendingUploadCount: { [self] in contents.withLock { $0.records.count } },
            reanchorWallTimes: { [self] now in
                contents.withLock { contents in
                    var changed = 0
                    for index in contents.records.indices {
                        let at = contents.records[index].at
                        guard now.wallClockSynchronized, at.bootID == now.bootID, !at.wallClockSynchronized else { continue }
                        contents.records[index].at.wall = now.wall + (.zero - (now.uptime - at.uptime))
                        contents.records[index].at.wallClockSynchronized = true
                        changed += 1
                    }
                    return changed
                }
            },
            recordAnsweringPings: { [self] checkIn, responses throws(StoreFailure) in
                try await write(checkIn, answering: responses)
            }
        )
    }

    private func write(_ checkIn: NewCheckIn, answering responses: [PingResponse]) async throws(StoreFailure) -> CheckInRecord {
        let hold = contents.withLock { contents in
            contents.writeAttempts += 1
            return contents.holdWrites
        }
        if hold {
            await withCheckedContinuation { continuation in
                contents.withLock { $0.heldWrite = continuation }
            }
        }
        return try contents.withLock { contents throws(StoreFailure) in
            if let failure = contents.failNextWrites { throw failure }
            let record = CheckInRecord(checkIn)
            contents.records.insert(record, at: 0)
            contents.pingResponses += responses
            return record
        }
    }

    var writeAttempts: Int { contents.withLock { $0.writeAttempts } }
    var records: [CheckInRecord] { contents.withLock { $0.records } }
    var settings: StoredSettings? { contents.withLock { $0.settings } }
    var pingResponses: [PingResponse] { contents.withLock { $0.pingResponses } }

    func failWrites(with failure: StoreFailure?) { contents.withLock { $0.failNextWrites = failure } }
    func holdWrites() { contents.withLock { $0.holdWrites = true } }

    /// Lets a held write go on; returns false if none was waiting yet.
    func releaseHeldWrite() -> Bool {
        let continuation = contents.withLock { contents in
            contents.holdWrites = false
            defer { contents.heldWrite = nil }
            return contents.heldWrite
        }
        continuation?.resume()
        return continuation != nil
    }
}
