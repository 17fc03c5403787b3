import CheckInStoreClient
import CheckInStoreLive
import DeviceClock
import DeviceConfig
import Logging
import UplinkClient
import Synchronization
import UplinkLive

extension UploadQueue {
    /// The store's pending check-ins.
    static func live(_ database: CheckInDatabase) -> UploadQueue {
        live(opening: { database })
    }

    /// The pending check-ins of a store that may still be opening (it is opened on first use).
    static func live(_ store: StoreSupervisor) -> UploadQueue {
        live(opening: { () async throws(StoreFailure) in try await store.openDatabase() })
    }

    private static func live(
        opening database: @escaping @Sendable () async throws(StoreFailure) -> CheckInDatabase
    ) -> UploadQueue {
        UploadQueue(
            pending: { limit async throws(StoreFailure) in try await database().pendingCheckIns(limit: limit) },
            markUploaded: { ids, time async throws(StoreFailure) in try await database().markUploaded(ids: ids, at: time) },
            depth: { () async throws(StoreFailure) in try await database().pendingUploadCount() },
            markRefused: { items async throws(StoreFailure) in
                try await database().markUploadRefused(items.map { (id: $0.id, message: $0.message) })
            },
            refused: { limit async throws(StoreFailure) in try await database().refusedUploads(limit: limit) },
            refusedCount: { () async throws(StoreFailure) in try await database().refusedUploadCount() }
        )
    }

    /// The check-ins still to be delivered to a further `target` (a healthchecks check), each
    /// target with its own state. The target is registered on first use, so it starts with the
    /// check-ins recorded from then on.
    static func deliveries(to target: String, _ database: CheckInDatabase) -> UploadQueue {
        deliveries(to: target, opening: { database })
    }

    static func deliveries(to target: String, _ store: StoreSupervisor) -> UploadQueue {
        deliveries(to: target, opening: { () async throws(StoreFailure) in try await store.openDatabase() })
    }

    private static func deliveries(
        to target: String, opening open: @escaping @Sendable () async throws(StoreFailure) -> CheckInDatabase
    ) -> UploadQueue {
        let registered = OnceFlag()
        @Sendable func database() async throws(StoreFailure) -> CheckInDatabase {
            let database = try await open()
            if !registered.isSet {
                try await database.registerDeliveryTarget(target)  // idempotent, so a race costs one write
                registered.set()
            }
            return database
        }
        return UploadQueue(
            pending: { limit async throws(StoreFailure) in try await database().pendingDeliveries(target: target, limit: limit) },
            markUploaded: { ids, time async throws(StoreFailure) in
                try await database().markDelivered(target: target, ids: ids, at: time)
            },
            depth: { () async throws(StoreFailure) in try await database().pendingDeliveryCount(target: target) },
            markRefused: { items async throws(StoreFailure) in
                try await database().markDeliveryRefused(target: target, items.map { (id: $0.id, message: $0.message) })
            },
            refused: { limit async throws(StoreFailure) in try await database().refusedDeliveries(target: target, limit: limit) },
            refusedCount: { () async throws(StoreFailure) in try await database().refusedDeliveries(target: target, limit: .max).count }
        )
    }
}

extension Uploader {
    /// The uploader for `[uplink]`, or nil for an offline device. The token file is read (and its
    /// mode checked) here, at start-up, so a bad one stops the daemon with EX_CONFIG.
    static func live(
        _ configuration: UplinkConfiguration?, queue: UploadQueue, clock: DeviceClock, logger: Logger
    ) throws(StartupError) -> (Uploader, CurlTransport)? {
        guard let configuration else { return nil }
        let token: DeviceToken
        do {
            token = try DeviceToken.read(path: configuration.tokenFile)
        } catch {
            throw .config(error.message)
        }
        let transport: CurlTransport
        do {
            transport = try CurlTransport()
        } catch {
            throw .system("uplink: cannot start its thread: \(error)")
        }
        let client = UplinkClient.live(baseURL: configuration.url, token: token, timeout: configuration.timeout,
                                       transport: transport)
        let policy = RetryPolicy(initial: min(.seconds(2), configuration.retryMax), cap: configuration.retryMax)
        let uploader = Uploader(client: client, queue: queue, clock: clock, policy: policy,
                                batchSize: configuration.batchSize, logger: logger)
        return (uploader, transport)
    }
}

/// A flag that is set once and read from any thread.
private final class OnceFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
