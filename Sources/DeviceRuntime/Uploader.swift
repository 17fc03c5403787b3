import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceClock
import Logging
import UplinkClient

/// Rows waiting for upload, oldest first, as an uploader sees the store.
struct OutboxQueue<Item: Sendable>: Sendable {
    var pending: @Sendable (_ limit: Int) async throws(StoreFailure) -> [Item]
    var markUploaded: @Sendable (_ ids: [CheckInID], _ at: WallTime) async throws(StoreFailure) -> Int
    var depth: @Sendable () async throws(StoreFailure) -> Int
}

/// The check-ins waiting for upload.
typealias UploadQueue = OutboxQueue<CheckInRecord>
/// The check-in uploader.
typealias Uploader = BatchUploader<CheckInRecord>

extension BatchUploader where Item == CheckInRecord {
    convenience init(client: UplinkClient, queue: UploadQueue, clock: DeviceClock, policy: RetryPolicy, batchSize: Int,
                     logger: Logger) {
        self.init(client: client, noun: "check-ins", send: client.uploadCheckIns, queue: queue, clock: clock,
                  policy: policy, batchSize: batchSize, logger: logger)
    }
}

/// Drains a queue of stored rows (check-ins, ping responses) to the backend: in order, in batches,
/// as soon as a check-in is stored, and again whenever a retry is due.
///
/// A row is marked uploaded only once the backend acknowledged its id, so a crash at any point
/// re-sends at most what was not acknowledged (the backend de-duplicates by id). Transient failures
/// back off (`RetryPolicy`: exponential, full jitter, capped, `Retry-After` honoured). A permanent
/// failure is not retried blindly: the rows stay queued, the status and the log say why, and only
/// a new check-in (or a restart) makes one new attempt.
@MainActor
final class BatchUploader<Item: Sendable & Identifiable> where Item.ID == CheckInID {
    enum State: String {
        case idle
        case uploading
        case waitingToRetry = "waiting_to_retry"
        /// A permanent failure: waiting for a new check-in or a restart.
        case stopped
    }

    let client: UplinkClient
    /// What the rows are, for logs and messages ("check-ins", "ping responses").
    let noun: String
    private let send: @Sendable ([Item]) async -> Result<[CheckInID], UplinkFailure>
    private let queue: OutboxQueue<Item>
    let clock: DeviceClock
    let policy: RetryPolicy
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
    /// Called when an upload succeeds after failures: the backend is reachable again, so other
    /// syncs (notifications) need not wait for their own timers.
    var onReconnected: (@MainActor () -> Void)?

    private var task: Task<Void, Never>?
    private var waiter: CheckedContinuation<Void, Never>?
    private var kicked = false
    private var stopped = false

    init(client: UplinkClient, noun: String, send: @escaping @Sendable ([Item]) async -> Result<[CheckInID], UplinkFailure>,
         queue: OutboxQueue<Item>, clock: DeviceClock, policy: RetryPolicy, batchSize: Int, logger: Logger) {
        self.client = client
        self.noun = noun
        self.send = send
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

    /// A check-in (and whatever was stored with it) was stored durably: upload now (unless a backoff is running).
    func checkInStored() {
        if let waiter {
            self.waiter = nil
            waiter.resume()
        } else {
            kicked = true
        }
    }

    /// Stops after the request in flight, if any (its rows stay queued unless acknowledged).
    func stop() {
        stopped = true
        task?.cancel()
        checkInStored()
    }

    var report: UplinkReport {
        UplinkReport(endpoint: client.endpoint, state: state.rawValue, lastResult: lastResult, lastMessage: lastMessage,
                     lastAttempt: lastAttempt?.iso8601, lastSuccess: lastSuccess?.iso8601,
                     nextRetry: state == .waitingToRetry ? nextRetry?.iso8601 : nil,
                     consecutiveFailures: consecutiveFailures, uploadedSinceStart: uploadedSinceStart)
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
                do { try await clock.sleep(delay) } catch { return }
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
            let batch: [Item]
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
            switch await send(batch) {
            case let .failure(failure):
                return failed(failure)
            case let .success(ids):
                let sent = Set(batch.map(\.id))
                let acknowledged = ids.filter { sent.contains($0) }
                guard !acknowledged.isEmpty else {
                    return failed(UplinkFailure(.transient, "\(client.endpoint) acknowledged none of the "
                                                + "\(batch.count) \(noun) sent; they stay queued"))
                }
                let marked: Int
                do {
                    marked = try await queue.markUploaded(acknowledged, clock.now().wall)
                } catch {
                    return failed(UplinkFailure(.transient, "uploaded, but could not mark the \(noun) as uploaded "
                                                + "(they will be sent again): \(error.message)"))
                }
                succeeded(sent: batch.count, acknowledged: acknowledged.count, marked: marked)
            }
        }
        return .drained
    }

    private func succeeded(sent: Int, acknowledged: Int, marked: Int) {
        if consecutiveFailures > 0 { onReconnected?() }
        uploadedSinceStart += marked
        lastSuccess = clock.now().wall
        lastResult = "ok"
        lastMessage = acknowledged < sent ? "the server acknowledged \(acknowledged) of \(sent) \(noun); the rest are sent again" : nil
        consecutiveFailures = 0
        nextRetry = nil
        logger.info("uploaded \(noun)", metadata: [
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
            logger.warning("upload of \(noun) failed, retrying in \(DurationText.format(delay)): \(failure.message)", metadata: [
                "failures": "\(consecutiveFailures)",
            ])
            return .retry(after: delay)
        case .permanent:
            lastResult = "permanent_failure"
            state = .stopped
            nextRetry = nil
            logger.error("upload refused, not retrying until the next check-in or a restart; the \(noun) stay queued: \(failure.message)")
            return .permanentFailure
        }
    }
}
