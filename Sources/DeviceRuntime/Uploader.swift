import CheckInModels
import CheckInStoreClient
import ControlProtocol
import DeviceClock
import Logging
import UplinkClient

/// Rows waiting for upload (check-ins, alerts), oldest first, as the uploader sees the store.
struct UploadQueue<Item: Identifiable & Sendable>: Sendable where Item.ID == CheckInID {
    var pending: @Sendable (_ limit: Int) async throws(StoreFailure) -> [Item]
    var markUploaded: @Sendable (_ ids: [Item.ID], _ at: WallTime) async throws(StoreFailure) -> Int
    var depth: @Sendable () async throws(StoreFailure) -> Int
    /// Flags rows the target refused for good: they leave the queue, keeping the message. Only the
    /// check-in queues have refusals (a batch answer with per-item `rejected`); for the others a
    /// refusal never arrives, and if one did the row would simply stay queued.
    var markRefused: @Sendable (_ refusals: [RefusedItem]) async throws(StoreFailure) -> Int = { _ in 0 }
    /// The refused check-ins, oldest first, and how many there are in all.
    var refused: @Sendable (_ limit: Int) async throws(StoreFailure) -> [RefusedCheckIn] = { _ in [] }
    var refusedCount: @Sendable () async throws(StoreFailure) -> Int = { 0 }
}

/// What an uploader tells its host as it goes (the feature's LEDs follow these).
enum UploadEvent<Item: Identifiable & Sendable>: Sendable where Item.ID == CheckInID {
    /// The oldest row the backend has not acknowledged, as last read (nil: the queue is empty).
    case oldestPending(Item?)
    /// The backend acknowledged these rows and they are marked uploaded.
    case acknowledged([Item.ID])
    /// A request failed; transient ones are retried on the backoff timer, permanent ones wait.
    case failed(UplinkFailure)
}

/// The check-ins' uploader.
typealias CheckInUploader = Uploader<CheckInRecord>

/// Drains a queue to the backend: in order, in batches, as soon as a row is stored, and again
/// whenever a retry is due. One instance per queue (check-ins, alerts), each with its own request.
///
/// A row is marked uploaded only once the backend acknowledged its id, so a crash at any point
/// re-sends at most what was not acknowledged (the backend de-duplicates by id). Transient failures
/// back off (`RetryPolicy`: exponential, full jitter, capped, `Retry-After` honoured). A permanent
/// failure is not retried blindly: the rows stay queued, the status and the log say why, and only
/// a new row (or a restart) makes one new attempt.
@MainActor
final class Uploader<Item: Identifiable & Sendable> where Item.ID == CheckInID {
    enum State: String {
        case idle
        case uploading
        case waitingToRetry = "waiting_to_retry"
        /// A permanent failure: waiting for a new check-in or a restart.
        case stopped
    }

    let client: UplinkClient
    /// The request that uploads one batch and returns what the target acknowledged (and refused).
    private let send: @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure>
    /// What the rows are, plural, for logs and messages ("check-ins", "alerts").
    let noun: String
    private let queue: UploadQueue<Item>
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
    private(set) var refusedSinceStart = 0

    private var task: Task<Void, Never>?
    /// The backoff wait in progress; cancelling it retries at once (the network came back).
    private var backoff: Task<Void, Never>?
    private var waiter: CheckedContinuation<Void, Never>?
    private var kicked = false
    private var stopped = false
    private var reportedOldest: Item.ID??
    /// Called when an upload succeeds after failures: the backend is reachable again, so other
    /// syncs (notifications) need not wait for their own timers.
    var onReconnected: (@MainActor () -> Void)?
    /// Called on the main actor with each `UploadEvent` (the host forwards them to the feature).
    var onEvent: ((UploadEvent<Item>) -> Void)?

    init(client: UplinkClient, noun: String, send: @escaping @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure>,
         queue: UploadQueue<Item>, clock: DeviceClock, policy: RetryPolicy, batchSize: Int, logger: Logger) {
        self.client = client
        self.noun = noun
        self.send = send
        self.queue = queue
        self.clock = clock
        self.policy = policy
        self.batchSize = max(batchSize, 1)
        self.logger = logger
    }

    /// Starts draining what is already queued, then waits for new rows.
    func start() {
        guard task == nil else { return }
        task = Task { await self.run() }
    }

    /// A row was stored durably: upload it now (unless a backoff is running).
    func itemStored() {
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
        itemStored()
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
                await nextItem()
            case let .retry(delay):
                let wait = Task { [clock] in _ = try? await clock.sleep(delay) }
                backoff = wait
                await wait.value
                backoff = nil
            }
        }
    }

    private func nextItem() async {
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
                return failed(UplinkFailure(.transient, "could not read the \(noun) upload queue: \(error.message)"))
            }
            report(oldest: batch.first)
            guard !batch.isEmpty else {
                if state != .stopped { state = .idle }
                return .drained
            }
            state = .uploading
            lastAttempt = clock.now().wall
            switch await send(batch) {
            case let .failure(failure):
                return failed(failure)
            case let .success(outcome):
                let sent = Set(batch.map(\.id))
                let acknowledged = outcome.acknowledged.filter { sent.contains($0) }
                let refused = outcome.refused.filter { sent.contains($0.id) && !acknowledged.contains($0.id) }
                guard !acknowledged.isEmpty || !refused.isEmpty else {
                    return failed(UplinkFailure(.transient, "\(client.endpoint) acknowledged none of the "
                                                + "\(batch.count) \(noun) sent; they stay queued"))
                }
                let marked: Int
                do {
                    marked = try await queue.markUploaded(acknowledged, clock.now().wall)
                    if !refused.isEmpty { _ = try await queue.markRefused(refused) }
                } catch {
                    return failed(UplinkFailure(.transient, "uploaded, but could not record the server's answer "
                                                + "(the \(noun) will be sent again): \(error.message)"))
                }
                for item in refused {
                    logger.error("\(client.endpoint) refused \(item.id) for good; it leaves the \(noun) upload queue (`lifesignalctl queue` lists it): \(item.message)")
                }
                succeeded(sent: batch.count, acknowledged: acknowledged.count, refused: refused, marked: marked)
                onEvent?(.acknowledged(acknowledged))
            }
        }
        return .drained
    }

    private func succeeded(sent: Int, acknowledged: Int, refused: [RefusedItem], marked: Int) {
        if consecutiveFailures > 0 { onReconnected?() }
        uploadedSinceStart += marked
        refusedSinceStart += refused.count
        lastSuccess = clock.now().wall
        lastResult = "ok"
        lastMessage = if let first = refused.first {
            "the server refused \(refused.count) of \(sent) \(noun) (e.g. \(first.id): \(first.message))"
        } else if acknowledged < sent {
            "the server acknowledged \(acknowledged) of \(sent) \(noun); the rest are sent again"
        } else {
            nil
        }
        consecutiveFailures = 0
        nextRetry = nil
        logger.info("uploaded \(noun)", metadata: [
            "sent": "\(sent)", "acknowledged": "\(acknowledged)", "endpoint": "\(client.endpoint)",
        ])
    }

    /// Tells the host when the head of the queue changed (not on every read).
    private func report(oldest: Item?) {
        guard reportedOldest != .some(oldest?.id) else { return }
        reportedOldest = .some(oldest?.id)
        onEvent?(.oldestPending(oldest))
    }

    private func failed(_ failure: UplinkFailure) -> Outcome {
        defer { onEvent?(.failed(failure)) }
        consecutiveFailures += 1
        lastMessage = failure.message
        switch failure.kind {
        case .transient:
            let delay = policy.delay(afterFailures: consecutiveFailures, retryAfter: failure.retryAfter, using: &random)
            lastResult = "transient_failure"
            state = .waitingToRetry
            nextRetry = clock.now().wall + delay
            logger.warning("\(noun) upload failed, retrying in \(DurationText.format(delay)): \(failure.message)", metadata: [
                "failures": "\(consecutiveFailures)",
            ])
            return .retry(after: delay)
        case .permanent:
            lastResult = "permanent_failure"
            state = .stopped
            nextRetry = nil
            logger.error("\(noun) upload refused, not retrying until the next one is stored or a restart; the \(noun) stay queued: \(failure.message)")
            return .permanentFailure
        }
    }
}

extension Uploader where Item == CheckInRecord {
    /// A check-in uploader: batches to `POST /v1/check-ins`, or pings to a healthchecks check
    /// (`client.uploadBatch` says which), with per-item refusals.
    convenience init(client: UplinkClient, queue: UploadQueue<CheckInRecord>, clock: DeviceClock, policy: RetryPolicy,
                     batchSize: Int, logger: Logger) {
        self.init(client: client, noun: "check-ins", send: client.uploadBatch, queue: queue, clock: clock,
                  policy: policy, batchSize: batchSize, logger: logger)
    }
}

extension Uploader where Item == AlertRecord {
    /// The help alerts' uploader: one alert per `POST /v1/alerts`.
    convenience init(client: UplinkClient, queue: UploadQueue<AlertRecord>, clock: DeviceClock, policy: RetryPolicy,
                     logger: Logger) {
        self.init(client: client, noun: "alerts", send: { batch in
            guard let alert = batch.first else { return .success(UploadOutcome(acknowledged: [])) }
            return await client.sendAlert(alert).map { UploadOutcome(acknowledged: $0) }
        }, queue: queue, clock: clock, policy: policy, batchSize: 1, logger: logger)
    }
}
