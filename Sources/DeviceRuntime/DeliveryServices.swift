import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceClock
import DeviceConfig
import LinuxIO
import Logging
import UplinkClient
import UplinkLive

/// Everything the uplink does besides uploading to the backend: the heartbeats (backend and
/// healthchecks), the healthchecks check-in pings with their own queue, and the network watcher
/// that cuts a retry's backoff short when a default route or an address appears.
@MainActor
final class DeliveryServices {
    /// The delivery target name of the healthchecks check-in check in the store.
    static let healthchecksTarget = "healthchecks"

    private let backend: CheckInUploader?
    let healthchecks: CheckInUploader?
    let healthchecksQueue: UploadQueue<CheckInRecord>?
    let backendHeartbeat: HeartbeatSender?
    let healthchecksHeartbeat: HeartbeatSender?
    private let transport: CurlTransport?
    private let logger: Logger
    private var networkMonitor: NetworkMonitor?

    init(backend: CheckInUploader?, backendHeartbeat: HeartbeatSender?, healthchecks: CheckInUploader?, healthchecksQueue: UploadQueue<CheckInRecord>?,
         healthchecksHeartbeat: HeartbeatSender?, transport: CurlTransport?, logger: Logger) {
        self.backend = backend
        self.backendHeartbeat = backendHeartbeat
        self.healthchecks = healthchecks
        self.healthchecksQueue = healthchecksQueue
        self.healthchecksHeartbeat = healthchecksHeartbeat
        self.transport = transport
        self.logger = logger
    }

    /// Built from `[uplink] heartbeat` and `[healthchecks]`; the healthchecks pings get a transport
    /// (thread) of their own, so a slow backend never delays them and the other way round.
    static func live(
        _ configuration: DeviceConfiguration, backend: CheckInUploader?, backendQueue: UploadQueue<CheckInRecord>, store: StoreSupervisor,
        clock: DeviceClock, logger: Logger
    ) throws(StartupError) -> DeliveryServices {
        var backendHeartbeat: HeartbeatSender?
        if let backend, let uplink = configuration.uplink {
            backendHeartbeat = HeartbeatSender(client: backend.client, period: uplink.heartbeat, clock: clock,
                                               queueDepth: { (try? await backendQueue.depth()) ?? 0 }, logger: logger)
        }
        guard let settings = configuration.healthchecks else {
            return DeliveryServices(backend: backend, backendHeartbeat: backendHeartbeat, healthchecks: nil,
                                    healthchecksQueue: nil, healthchecksHeartbeat: nil, transport: nil, logger: logger)
        }
        let transport: CurlTransport
        do {
            transport = try CurlTransport(threadName: "healthchecks")
        } catch {
            throw .uplink("healthchecks", error)
        }
        let queue = UploadQueue<CheckInRecord>.deliveries(to: healthchecksTarget, store)
        let pings = settings.checkInURL.map { url in
            Uploader(client: .healthchecks(url: url, timeout: settings.timeout, lateAfter: settings.lateAfter,
                                           now: clock.now, transport: transport),
                     queue: queue, clock: clock,
                     policy: Uplink.retryPolicy(cap: settings.retryMax),
                     batchSize: 20, logger: logger)
        }
        let heartbeat = settings.heartbeatURL.map { url in
            HeartbeatSender(client: .healthchecks(url: url, timeout: settings.timeout, lateAfter: settings.lateAfter,
                                                  now: clock.now, transport: transport),
                            period: settings.heartbeat, clock: clock,
                            queueDepth: { (try? await (backend != nil ? backendQueue : queue).depth()) ?? 0 }, logger: logger)
        }
        return DeliveryServices(backend: backend, backendHeartbeat: backendHeartbeat, healthchecks: pings,
                                healthchecksQueue: pings == nil ? nil : queue, healthchecksHeartbeat: heartbeat,
                                transport: transport, logger: logger)
    }

    func start() {
        healthchecks?.start()
        backendHeartbeat?.start()
        healthchecksHeartbeat?.start()
        guard backend != nil || healthchecks != nil || healthchecksHeartbeat != nil else { return }
        do {
            networkMonitor = try NetworkMonitor.start { [weak self] in
                Task { @MainActor in self?.networkChanged() }
            }
        } catch {
            logger.warning("the network coming back will only be noticed at the next retry: \(error)")
        }
    }

    /// A check-in was stored durably: ping it now (unless a backoff is running).
    func checkInStored() {
        healthchecks?.itemStored()
    }

    /// Other uploaders (alerts, ping responses) that also retry at once when the network returns.
    var alsoOnNetworkChange: [@MainActor () -> Void] = []

    func networkChanged() {
        backend?.networkChanged()
        for retry in alsoOnNetworkChange { retry() }
        healthchecks?.networkChanged()
        backendHeartbeat?.networkChanged()
        healthchecksHeartbeat?.networkChanged()
    }

    func stop() {
        networkMonitor?.stop()
        networkMonitor = nil
        healthchecks?.stop()
        backendHeartbeat?.stop()
        healthchecksHeartbeat?.stop()
        transport?.shutdown()
    }

    /// The healthchecks pings' state, with the heartbeat check's.
    var healthchecksReport: UplinkReport? {
        guard var report = healthchecks?.report ?? healthchecksHeartbeat.map({ heartbeatOnly($0) }) else { return nil }
        report.heartbeat = healthchecksHeartbeat?.report
        return report
    }

    /// The healthchecks queue for `lifesignalctl queue`.
    func healthchecksQueueReport() async throws(StoreFailure) -> TargetQueueReport? {
        guard let healthchecksQueue else { return nil }
        return TargetQueueReport(depth: try await healthchecksQueue.depth(),
                                 refused: try await healthchecksQueue.refused(20).map(RefusedCheckInReport.init),
                                 state: healthchecksReport)
    }

    private func heartbeatOnly(_ sender: HeartbeatSender) -> UplinkReport {
        UplinkReport(endpoint: sender.report.endpoint, state: "idle", lastResult: nil, lastMessage: nil, lastAttempt: nil,
                     lastSuccess: nil, nextRetry: nil, consecutiveFailures: 0, uploadedSinceStart: 0)
    }
}

extension RefusedCheckInReport {
    init(_ refused: RefusedCheckIn) {
        self.init(checkIn: CheckInReport(refused.record), message: refused.message)
    }
}
