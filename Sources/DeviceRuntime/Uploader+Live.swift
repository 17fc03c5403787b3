import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import DeviceClock
import DeviceConfig
import Logging
import UplinkClient
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
            depth: { () async throws(StoreFailure) in try await database().pendingUploadCount() }
        )
    }
}

extension OutboxQueue where Item == PingResponse {
    /// The store's ping responses waiting for upload.
    static func pingResponses(_ store: StoreSupervisor) -> OutboxQueue<PingResponse> {
        OutboxQueue(
            pending: { limit async throws(StoreFailure) in try await store.openDatabase().pendingPingResponses(limit: limit) },
            markUploaded: { ids, time async throws(StoreFailure) in
                try await store.openDatabase().markPingResponsesUploaded(ids: ids, at: time)
            },
            depth: { () async throws(StoreFailure) in try await store.openDatabase().pendingPingResponseCount() }
        )
    }
}

extension Uploader {
    /// The uploader for `[uplink]`, or nil for an offline device. The token file is read (and its
    /// mode checked) here, at start-up, so a bad one stops the daemon with EX_CONFIG. The second
    /// transport carries the ping long poll, so a held poll never delays an upload.
    static func live(
        _ configuration: UplinkConfiguration?, queue: UploadQueue, clock: DeviceClock, logger: Logger
    ) throws(StartupError) -> (Uploader, [CurlTransport])? {
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
            throw .system("uplink: cannot start its thread: \(error)")
        }
        let client = UplinkClient.live(baseURL: configuration.url, token: token, timeout: configuration.timeout,
                                       transport: transport, pollTransport: pollTransport)
        let uploader = Uploader(client: client, queue: queue, clock: clock, policy: retryPolicy(configuration),
                                batchSize: configuration.batchSize, logger: logger)
        return (uploader, [transport, pollTransport])
    }

    static func retryPolicy(_ configuration: UplinkConfiguration) -> RetryPolicy {
        RetryPolicy(initial: min(.seconds(2), configuration.retryMax), cap: configuration.retryMax)
    }
}
