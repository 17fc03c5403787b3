public import CheckInModels
public import CheckInStoreClient
public import Synchronization

/// The device's events and run mark in memory, with writes that can be made to fail.
public final class FakePowerEventStore: Sendable {
    public struct Contents: Sendable {
        /// Newest first, like the live store.
        public var events: [PowerEvent] = []
        /// This run's mark: set at start, cleared at a clean stop.
        public var run: PreviousRun?
        public var failNextWrites: StoreFailure?
    }

    public let contents: Mutex<Contents>

    /// `previousRun`: how the run before the test ended (nil: a fresh store).
    public init(previousRun: PreviousRun? = nil) {
        contents = Mutex(Contents(run: previousRun))
    }

    public var client: PowerEventStoreClient {
        PowerEventStoreClient(
            record: { [self] event throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    contents.events.insert(event, at: 0)
                    return event
                }
            },
            recent: { [self] limit in contents.withLock { Array($0.events.prefix(limit)) } },
            markRunStarted: { [self] now throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    defer { contents.run = PreviousRun(startedAt: now, stoppedCleanly: false) }
                    return contents.run
                }
            },
            markRunStopped: { [self] () throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failNextWrites { throw failure }
                    contents.run?.stoppedCleanly = true
                }
            })
    }

    public var events: [PowerEvent] { contents.withLock { $0.events } }
    public var run: PreviousRun? { contents.withLock { $0.run } }
    public func failWrites(with failure: StoreFailure?) { contents.withLock { $0.failNextWrites = failure } }
}
