import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceClock
import Logging
import UplinkClient

/// The check-ins waiting for upload, oldest first, as the uploader sees the store.
struct UploadQueue: Sendable {
    var pending: @Sendable (_ limit: Int) async throws(StoreFailure) -> [CheckInRecord]
    var markUploaded: @Sendable (_ ids: [CheckInID], _ at: WallTime) async throws(StoreFailure) -> Int
    var depth: @Sendable () async throws(StoreFailure) -> Int
    /// Flags check-ins the target refused for good: they leave the queue, keeping the message.
    var markRefused: @Sendable (_ refusals: [RefusedItem]) async throws(StoreFailure) -> Int
    /// The refused check-ins, oldest first, and how many there are in all.
    var refused: @Sendable (_ limit: Int) async throws(StoreFailure) -> [RefusedCheckIn]
    var refusedCount: @Sendable () async throws(StoreFailure) -> Int
}

/// Drains the queue to the backend: in order, in batches, as soon as a check-in is stored, and again
/// whenever a retry is due.
///
/// A row is marked uploaded only once the backend acknowledged its id, so a crash at any point
/// re-sends at most what was not acknowledged (the backend de-duplicates by id). Transient failures
/// back off (`RetryPolicy`: exponential, full jitter, capped, `Retry-After` honoured). A permanent
/// failure is not retried blindly: the rows stay queued, the status and the log say why, and only
/// a new check-in (or a restart) makes one new attempt.
@MainActor
final class Uploader {
    enum State: String {
        case idle
        case uploading
        case waitingToRetry = "waiting_to_retry"
        /// A permanent failure: waiting for a new check-in or a restart.
        case stopped
    }

    let client: UplinkClient
    private let queue: UploadQueue
    private let clock: DeviceClock
    private let policy: RetryPolicy
    private let batchSize: Int
    private let logger: Logger
    private var random = SystemRandomNumberGenerator()

    private(set) var state = State.idle
    private var lastResult: String?
    private var lastMessage: String?
    private var lastAttempt: WallTime?
    private var lastSuccess: WallTime?
    private var nextRetry: WallTime?
    private(set) var consecutiveFailures = 0
    private(set) var uploadedSinceStart = 0
    private(set) var refusedSinceStart = 0

    private var task: Task<Void, Never>?
    /// The backoff wait in progress; cancelling it retries at once (the network came back).
    private var backoff: Task<Void, Never>?
    private var waiter: CheckedContinuation<Void, Never>?
    private var kicked = false
    private var stopped = false

    init(client: UplinkClient, queue: UploadQueue, clock: DeviceClock, policy: RetryPolicy, batchSize: Int, logger: Logger) {
        self.client = client
        self.queue = queue
        self.clock = clock
        self.policy = policy
        self.batchSize = max(batchSize, 1)
        self.logger = logger
    }

    /// Starts draining what is already queued, then waits for new check-ins.
    func start() {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// A check-in was stored durably: upload it now (unless a backoff is running).
    func checkInStored() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            kicked = true
        }
    }

    /// The network may be back (a default route or an address appeared): a retry that is waiting
    /// out its backoff happens now. Permanent failures still wait for a check-in or a restart.
    func networkChanged() {
        guard state == .waitingToRetry, let backoff else { return }
        logger.info("network changed: retrying the upload now instead of at the end of the backoff")
        backoff.cancel()
    }

    /// Stops after the request in flight, if any (its rows stay queued unless acknowledged).
    func stop() {
        stopped = true
        task?.cancel()
        backoff?.cancel()
        checkInStored()
    }

    var report: UplinkReport {
        var report = UplinkReport(endpoint: client.endpoint, state: state.rawValue, lastResult: lastResult,
                                  lastMessage: lastMessage, lastAttempt: lastAttempt?.iso8601, lastSuccess: lastSuccess?.iso8601,
                                  nextRetry: state == .waitingToRetry ? nextRetry?.iso8601 : nil,
                                  consecutiveFailures: consecutiveFailures, uploadedSinceStart: uploadedSinceStart)
        report.refusedSinceStart = refusedSinceStart
        return report
    }

    // MARK: The loop

    private enum Outcome {
        case drained
        case permanentFailure
        case retry(after: Duration)
    }

    private func run() async {
        while !stopped {
            switch await drain() {
            case .drained, .permanentFailure:
                await nextCheckIn()
            case let .retry(delay):
                let wait = Task { [clock] in _ = try? await clock.sleep(delay) }
                backoff = wait
                await wait.value
                backoff = nil
            }
        }
    }

    private func nextCheckIn() async {
        if kicked || stopped {
            kicked = false
            return
        }
        await withCheckedContinuation { waiter = $0 }
        kicked = false
    }

    private func drain() async -> Outcome {
        while !stopped {
            let batch: [CheckInRecord]
            do {
                batch = try await queue.pending(batchSize)
            } catch {
                return failed(UplinkFailure(.transient, "could not read the upload queue: \(error.message)"))
            }
            guard !batch.isEmpty else {
                if state != .stopped { state = .idle }
                return .drained
            }
            state = .uploading
            lastAttempt = clock.now().wall
            switch await client.uploadBatch(batch) {
            case let .failure(failure):
                return failed(failure)
            case let .success(outcome):
                let sent = Set(batch.map(\.id))
                let acknowledged = outcome.acknowledged.filter { sent.contains($0) }
                let refused = outcome.refused.filter { sent.contains($0.id) && !acknowledged.contains($0.id) }
                guard !acknowledged.isEmpty || !refused.isEmpty else {
                    return failed(UplinkFailure(.transient, "\(client.endpoint) acknowledged none of the "
                                                + "\(batch.count) check-ins sent; they stay queued"))
                }
                let marked: Int
                do {
                    marked = try await queue.markUploaded(acknowledged, clock.now().wall)
                    if !refused.isEmpty { _ = try await queue.markRefused(refused) }
                } catch {
                    return failed(UplinkFailure(.transient, "uploaded, but could not record the server's answer "
                                                + "(the check-ins will be sent again): \(error.message)"))
                }
                for item in refused {
                    logger.error("\(client.endpoint) refused check-in \(item.id) for good; it leaves the upload queue (`lifesignalctl queue` lists it): \(item.message)")
                }
                succeeded(sent: batch.count, acknowledged: acknowledged.count, refused: refused, marked: marked)
            }
        }
        return .drained
    }

    private func succeeded(sent: Int, acknowledged: Int, refused: [RefusedItem], marked: Int) {
        uploadedSinceStart += marked
        refusedSinceStart += refused.count
        lastSuccess = clock.now().wall
        lastResult = "ok"
        lastMessage = if let first = refused.first {
            "the server refused \(refused.count) of \(sent) check-ins (e.g. \(first.id): \(first.message))"
        } else if acknowledged < sent {
            "the server acknowledged \(acknowledged) of \(sent) check-ins; the rest are sent again"
        } else {
            nil
        }
        consecutiveFailures = 0
        nextRetry = nil
        logger.info("uploaded check-ins", metadata: [
            "sent": "\(sent)", "acknowledged": "\(acknowledged)", "endpoint": "\(client.endpoint)",
        ])
    }

    private func failed(_ failure: UplinkFailure) -> Outcome {
        consecutiveFailures += 1
        lastMessage = failure.message
        switch failure.kind {
        case .transient:
            let delay = policy.delay(afterFailures: consecutiveFailures, retryAfter: failure.retryAfter, using: &random)
            lastResult = "transient_failure"
            state = .waitingToRetry
            nextRetry = clock.now().wall + delay
            logger.warning("upload failed, retrying in \(DurationText.format(delay)): \(failure.message)", metadata: [
                "failures": "\(consecutiveFailures)",
            ])
            return .retry(after: delay)
        case .permanent:
            lastResult = "permanent_failure"
            state = .stopped
            nextRetry = nil
            logger.error("upload refused, not retrying until the next check-in or a restart; the check-ins stay queued: \(failure.message)")
            return .permanentFailure
        }
    }
}
