import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import DeviceClock
import DeviceConfig
import Logging
import UplinkClient
import Synchronization
import UplinkLive

extension UploadQueue where Item == CheckInRecord {
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

extension UploadQueue where Item == AlertRecord {
    /// The store's pending help alerts.
    static func alerts(_ database: CheckInDatabase) -> UploadQueue {
        alerts(opening: { database })
    }

    /// The pending alerts of a store that may still be opening.
    static func alerts(_ store: StoreSupervisor) -> UploadQueue {
        alerts(opening: { () async throws(StoreFailure) in try await store.openDatabase() })
    }

    private static func alerts(
        opening database: @escaping @Sendable () async throws(StoreFailure) -> CheckInDatabase
    ) -> UploadQueue {
        UploadQueue(
            pending: { limit async throws(StoreFailure) in try await database().pendingAlerts(limit: limit) },
            markUploaded: { ids, time async throws(StoreFailure) in try await database().markAlertsUploaded(ids: ids, at: time) },
            depth: { () async throws(StoreFailure) in try await database().pendingAlertCount() }
        )
    }
}

extension UploadQueue where Item == PingResponse {
    /// The store's ping responses waiting for upload.
    static func pingResponses(_ store: StoreSupervisor) -> UploadQueue {
        UploadQueue(
            pending: { limit async throws(StoreFailure) in try await store.openDatabase().pendingPingResponses(limit: limit) },
            markUploaded: { ids, time async throws(StoreFailure) in
                try await store.openDatabase().markPingResponsesUploaded(ids: ids, at: time)
            },
            depth: { () async throws(StoreFailure) in try await store.openDatabase().pendingPingResponseCount() }
        )
    }
}

/// The device's connection to the backend: one client, an uploader per queue, and two libcurl
/// threads: one for requests, one for the ping long poll (so a held poll never delays an upload).
@MainActor
struct Uplink {
    let checkIns: CheckInUploader
    let alerts: Uploader<AlertRecord>
    let transport: CurlTransport
    let pollTransport: CurlTransport

    var client: UplinkClient { checkIns.client }

    /// Help alerts are urgent: their retries never wait longer than this, whatever `retry_max` says.
    static let longestAlertRetry = Duration.seconds(60)

    /// The uplink for `[uplink]`, or nil for an offline device. The token file is read (and its
    /// mode checked) here, at start-up, so a bad one stops the daemon with EX_CONFIG.
    static func live(
        _ configuration: UplinkConfiguration?, checkIns: UploadQueue<CheckInRecord>, alerts: UploadQueue<AlertRecord>,
        clock: DeviceClock, logger: Logger
    ) throws(StartupError) -> Uplink? {
        guard let configuration else { return nil }
        let token: DeviceToken
        do {
            token = try DeviceToken.read(path: configuration.tokenFile)
        } catch {
            throw .config(error.message)
        }
        let transport: CurlTransport, pollTransport: CurlTransport
        do {
            transport = try CurlTransport()
            pollTransport = try CurlTransport(threadName: "uplink-poll")
        } catch {
            throw .uplink("uplink", error)
        }
        let client = UplinkClient.live(baseURL: configuration.url, token: token, timeout: configuration.timeout,
                                       transport: transport, pollTransport: pollTransport)
        let policy = retryPolicy(configuration)
        let alertPolicy = RetryPolicy(initial: policy.initial, cap: min(configuration.retryMax, longestAlertRetry))
        return Uplink(
            checkIns: Uploader(client: client, queue: checkIns, clock: clock, policy: policy,
                               batchSize: configuration.batchSize, logger: logger),
            alerts: Uploader(client: client, queue: alerts, clock: clock, policy: alertPolicy, logger: logger),
            transport: transport, pollTransport: pollTransport)
    }

    /// Exponential from 2 s (or `retry_max` if smaller), capped at `retry_max`.
    static func retryPolicy(_ configuration: UplinkConfiguration) -> RetryPolicy {
        retryPolicy(cap: configuration.retryMax)
    }

    /// Exponential from 2 s (or `cap` if smaller), capped at `cap`: every target's `retry_max`.
    static func retryPolicy(cap: Duration) -> RetryPolicy {
        RetryPolicy(initial: min(.seconds(2), cap), cap: cap)
    }

    func start() {
        checkIns.start()
        alerts.start()
    }

    func stop() {
        checkIns.stop()
        alerts.stop()
        transport.shutdown()
        pollTransport.shutdown()
    }
}

/// A flag that is set once and read from any thread.
private final class OnceFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
