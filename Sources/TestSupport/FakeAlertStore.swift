public import CheckInModels
public import CheckInStoreClient
public import Synchronization

/// An in-memory stand-in for the alerts table, for feature tests (the real table has its own tests).
public final class FakeAlertStore: Sendable {
    public struct Contents {
        public var alerts: [AlertRecord] = []
        public var failWrites: StoreFailure?
    }

    public let contents: Mutex<Contents>

    public init(alerts: [AlertRecord] = []) {
        contents = Mutex(Contents(alerts: alerts))
    }

    public var client: AlertStoreClient {
        AlertStoreClient(
            record: { [self] new throws(StoreFailure) in
                try contents.withLock { contents throws(StoreFailure) in
                    if let failure = contents.failWrites { throw failure }
                    var record = new
                    record.upload = .pending
                    contents.alerts.append(record)
                    return record
                }
            },
            pending: { [self] in contents.withLock { $0.alerts.filter { $0.upload == .pending } } }
        )
    }

    public var alerts: [AlertRecord] { contents.withLock { $0.alerts } }
    public func failWrites(with failure: StoreFailure?) { contents.withLock { $0.failWrites = failure } }
}
