import CheckInModels
import ControlProtocol
import DeviceClock
import Logging
import UplinkClient

/// Tells a target every `period` that the device is alive, so it can tell "device offline" from
/// "check-in missed" (docs/uplink.md). One wake-up per period, none in between; a heartbeat that
/// fails is not retried on a timer of its own (the next period brings the next one), except that
/// the network coming back sends one at once.
@MainActor
final class HeartbeatSender {
    private let client: UplinkClient
    private let period: Duration
    private let clock: DeviceClock
    private let queueDepth: @Sendable () async -> Int
    private let logger: Logger
    private var task: Task<Void, Never>?
    private var pause: Task<Void, Never>?
    private var stopped = false
    private var lastAttempt: WallTime?
    private var lastSuccess: WallTime?
    private var lastError: String?

    init(client: UplinkClient, period: Duration, clock: DeviceClock, queueDepth: @escaping @Sendable () async -> Int,
         logger: Logger) {
        self.client = client
        self.period = period
        self.clock = clock
        self.queueDepth = queueDepth
        self.logger = logger
    }

    /// Sends the first heartbeat now (the device has started), then one every period.
    func start() {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// The network may be back: if the last heartbeat failed, send the next one now.
    func networkChanged() {
        guard lastError != nil else { return }
        pause?.cancel()
    }

    func stop() {
        stopped = true
        task?.cancel()
        pause?.cancel()
    }

    var report: HeartbeatReport {
        HeartbeatReport(endpoint: client.endpoint, periodSeconds: period.wholeSeconds, lastAttempt: lastAttempt?.iso8601,
                        lastSuccess: lastSuccess?.iso8601, lastError: lastError)
    }

    private func run() async {
        while !stopped {
            await beat()
            let wait = Task { [clock, period] in _ = try? await clock.sleep(period) }
            pause = wait
            await wait.value
            pause = nil
        }
    }

    private func beat() async {
        let now = clock.now()
        lastAttempt = now.wall
        let heartbeat = DeviceHeartbeat(bootID: now.bootID, uptime: now.uptime, queueDepth: await queueDepth())
        switch await client.sendHeartbeat(heartbeat) {
        case .success:
            if lastError != nil { logger.notice("heartbeat to \(client.endpoint) delivered again") }
            lastSuccess = clock.now().wall
            lastError = nil
        case let .failure(failure):
            // One line per period while it fails: enough to see an outage, not a flood.
            logger.info("heartbeat not delivered (next in \(DurationText.format(period))): \(failure.message)")
            lastError = failure.message
        }
    }
}
