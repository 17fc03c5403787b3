public import CheckInModels
public import CheckInStoreClient
public import Synchronization

/// An in-memory stand-in for the SQLite store, for feature tests only (the real store has its own
/// tests on real files). Writes can be held open to test presses during a pending write, and can be
/// made to fail.
public final class FakeCheckInStore: Sendable {
    public struct Contents {
        public var records: [CheckInRecord] = []
        /// Ping responses written with their check-in (in the same "transaction": all or nothing).
        public var pingResponses: [PingResponse] = []
        /// Pings received, answered or not (answered ones have a response).
        public var pings: [PendingPing] = []
        public var settings: StoredSettings?
        /// Away periods, newest first (like the live store's `away_periods`).
        public var awayPeriods: [AwayPeriod] = []
        public var writeAttempts = 0
        public var failNextWrites: StoreFailure?
        public var heldWrite: CheckedContinuation<Void, Never>?
        public var holdWrites = false
    }

    public let contents: Mutex<Contents>

    public init(records: [CheckInRecord] = [], settings: StoredSettings? = nil) {
        contents = Mutex(Contents(records: records, settings: settings))
    }

    public var client: CheckInStoreClient {
        CheckInStoreClient(
            record: { [self] checkIn throws(StoreFailure) in try await write(checkIn, answering: []) },
            history: { [self] limit in contents.withLock { Array($0.records.prefix(limit)) } },
            loadSettings: { [self] in
                contents.withLock { contents in
                    guard var settings = contents.settings else { return nil }
                    settings.latestAway = contents.awayPeriods.first
                    return settings
                }
            },
            saveSettings: { [self] settings throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    contents.settings = settings
                }
            },
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
            },
            savePings: { [self] pings throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    let known = Set(contents.pings.map(\.id))
                    contents.pings += pings.filter { !known.contains($0.id) }
                    let answered = Set(contents.pingResponses.map(\.pingID))
                    return contents.pings.filter { !answered.contains($0.id) }
                }
            },
            pendingPings: { [self] in
                contents.withLock { contents in
                    let answered = Set(contents.pingResponses.map(\.pingID))
                    return contents.pings.filter { !answered.contains($0.id) }
                }
            },
            startAway: { [self] period, settings throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    if let running = contents.awayPeriods.first, running.ended == nil {
                        contents.awayPeriods[0].ended = AwayPeriod.Ending(at: period.start, reason: .replaced)
                    }
                    contents.awayPeriods.insert(period, at: 0)
                    if let settings { contents.settings = settings }
                }
            },
            endAway: { [self] period, settings throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    if let index = contents.awayPeriods.firstIndex(where: { $0.id == period.id }) {
                        contents.awayPeriods[index] = period
                    }
                    if let settings { contents.settings = settings }
                }
            },
            awayPeriods: { [self] limit in contents.withLock { Array($0.awayPeriods.prefix(limit)) } },
            withdrawPings: { [self] ids throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    let answered = Set(contents.pingResponses.map(\.pingID))
                    contents.pings.removeAll { ids.contains($0.id) && !answered.contains($0.id) }
                }
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

    public var writeAttempts: Int { contents.withLock { $0.writeAttempts } }
    public var records: [CheckInRecord] { contents.withLock { $0.records } }
    public var settings: StoredSettings? { contents.withLock { $0.settings } }
    public var pingResponses: [PingResponse] { contents.withLock { $0.pingResponses } }
    public var awayPeriods: [AwayPeriod] { contents.withLock { $0.awayPeriods } }

    public func failWrites(with failure: StoreFailure?) { contents.withLock { $0.failNextWrites = failure } }
    public func holdWrites() { contents.withLock { $0.holdWrites = true } }

    /// Lets a held write go on; returns false if none was waiting yet.
    public func releaseHeldWrite() -> Bool {
        let continuation = contents.withLock { contents in
            contents.holdWrites = false
            defer { contents.heldWrite = nil }
            return contents.heldWrite
        }
        continuation?.resume()
        return continuation != nil
    }
}
