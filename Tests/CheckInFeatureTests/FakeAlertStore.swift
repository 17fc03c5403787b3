import CheckInModels
import CheckInStoreClient
import Synchronization

/// An in-memory stand-in for the alerts table, for feature tests (the real table has its own tests).
final class FakeAlertStore: Sendable {
    struct Contents {
        var alerts: [AlertRecord] = []
        var failWrites: StoreFailure?
    }

    let contents: Mutex<Contents>

    init(alerts: [AlertRecord] = []) {
        contents = Mutex(Contents(alerts: alerts))
    }

    var client: AlertStoreClient {
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

    var alerts: [AlertRecord] { contents.withLock { $0.alerts } }
    func failWrites(with failure: StoreFailure?) { contents.withLock { $0.failWrites = failure } }
}
