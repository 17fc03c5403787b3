public import Backoff
public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import UplinkClient

/// Drains one queue to its target: in order, in batches, as soon as a row is stored, and again
/// whenever a retry is due. One instance per queue (check-ins to the backend, check-ins to a
/// healthchecks check, help alerts, answers to pings), each with its own request; a parent scopes
/// each under a namespace of its own so their effects never cancel each other.
///
/// A row is marked uploaded only once the target acknowledged its id, so a crash at any point
/// re-sends at most what was not acknowledged (the target de-duplicates by id). Rows the target
/// refuses for good leave the queue with its message. Transient failures back off (`Backoff`,
/// `Retry-After` honoured); a permanent failure is not retried blindly: the rows stay queued, the
/// status says why, and only a new row (or a restart) makes one new attempt.
public struct UploadFeature<Item: Identifiable & Equatable & Sendable>: Reducer where Item.ID == CheckInID {
    public var queue: UploadQueueClient<Item>
    /// Uploads one batch and returns what the target acknowledged (and refused).
    public var request: @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure>
    public var clock: DeviceClock
    public var backoff: Backoff
    /// A number in the range given (the jitter of the backoff); tests pass a fixed one.
    public var random: @Sendable (ClosedRange<Int64>) -> Int64
    /// Rows per request (1 for help alerts: one alert per request).
    public var batchSize: Int

    public init(
        queue: UploadQueueClient<Item>,
        request: @escaping @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure>,
        clock: DeviceClock,
        backoff: Backoff,
        random: @escaping @Sendable (ClosedRange<Int64>) -> Int64,
        batchSize: Int
    ) {
        self.queue = queue
        self.request = request
        self.clock = clock
        self.backoff = backoff
        self.random = random
        self.batchSize = max(batchSize, 1)
    }

    public enum CancelID {
        /// The drain step in flight (a read, a request, a write of the answer).
        public static var drain: EffectID { EffectID("upload-drain") }
        /// The backoff before the next attempt.
        public static var retry: EffectID { EffectID("upload-retry") }
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.isRunning else { return .none }
            state.isRunning = true
            return readBatch(&state)

        case .stop:
            state.isRunning = false
            state.step = nil
            state.drainAgain = false
            state.nextRetry = nil
            state.retryDelay = nil
            if state.status != .stopped { state.status = .idle }
            return .merge(.cancel(id: CancelID.drain), .cancel(id: CancelID.retry))

        case .itemStored:
            guard state.isRunning else { return .none }
            if state.step != nil {
                state.drainAgain = true
                return .none
            }
            // A backoff is running: the retry reads the queue, new row included.
            guard state.status != .waitingToRetry else { return .none }
            return readBatch(&state)

        case .networkChanged:
            guard state.isRunning, state.status == .waitingToRetry, state.step == nil else { return .none }
            return .merge(.cancel(id: CancelID.retry), readBatch(&state))

        case .retryDue:
            guard state.isRunning, state.status == .waitingToRetry, state.step == nil else { return .none }
            return readBatch(&state)

        case let .batchRead(.success(batch)):
            guard state.step == .readingQueue else { return .none }
            let head = reportHead(batch.first, &state)
            guard !batch.isEmpty else {
                state.step = nil
                if state.status != .stopped { state.status = .idle }
                return .merge(head, state.drainAgain ? readBatch(&state) : .none)
            }
            state.step = .sending(batch.map(\.id))
            state.status = .uploading
            state.lastAttempt = clock.now().wall
            return .merge(head, .run { [request] send in
                await send(.batchSent(await request(batch)))
            }
            .cancellable(id: CancelID.drain))

        case let .batchRead(.failure(failure)):
            guard state.step == .readingQueue else { return .none }
            return fail(UplinkFailure(.transient, "could not read the \(state.noun) upload queue: \(failure.message)"), &state)

        case let .batchSent(.success(outcome)):
            guard case let .sending(ids) = state.step else { return .none }
            let sent = Set(ids)
            let acknowledged = outcome.acknowledged.filter { sent.contains($0) }
            let acknowledgedSet = Set(acknowledged)
            let refused = outcome.refused.filter { sent.contains($0.id) && !acknowledgedSet.contains($0.id) }
            guard !acknowledged.isEmpty || !refused.isEmpty else {
                return fail(UplinkFailure(.transient, "\(state.endpoint) acknowledged none of the \(ids.count) "
                                          + "\(state.noun) sent; they stay queued"), &state)
            }
            state.step = .recording(Answer(sent: ids.count, acknowledged: acknowledged, refused: refused))
            let at = clock.now().wall
            return .run { [queue] send in
                await send(.answerRecorded(await Result { () async throws(StoreFailure) in
                    let marked = acknowledged.isEmpty ? 0 : try await queue.markUploaded(acknowledged, at)
                    if !refused.isEmpty { _ = try await queue.markRefused(refused) }
                    return marked
                }))
            }
            .cancellable(id: CancelID.drain)

        case let .batchSent(.failure(failure)):
            guard case .sending = state.step else { return .none }
            return fail(failure, &state)

        case let .answerRecorded(.success(marked)):
            guard case let .recording(answer) = state.step else { return .none }
            let reconnected = state.consecutiveFailures > 0
            state.uploadedSinceStart += marked
            state.refusedSinceStart += answer.refused.count
            state.lastSuccess = clock.now().wall
            state.lastResult = .ok
            state.lastMessage = Self.message(for: answer, noun: state.noun)
            state.consecutiveFailures = 0
            state.nextRetry = nil
            state.retryDelay = nil
            return .merge(
                reconnected ? .send(.delegate(.reconnected)) : .none,
                answer.acknowledged.isEmpty ? .none : .send(.delegate(.acknowledged(answer.acknowledged))),
                // Keep draining: the next batch, or the rows of this one the target did not take.
                readBatch(&state)
            )

        case let .answerRecorded(.failure(failure)):
            guard case .recording = state.step else { return .none }
            return fail(UplinkFailure(.transient, "uploaded, but could not record the server's answer "
                                      + "(the \(state.noun) will be sent again): \(failure.message)"), &state)

        case .delegate:
            return .none
        }
    }

    private func readBatch(_ state: inout State) -> Effect<Action> {
        state.step = .readingQueue
        state.drainAgain = false
        if state.status == .waitingToRetry {
            state.status = .uploading
            state.nextRetry = nil
            state.retryDelay = nil
        }
        return .run { [queue, batchSize] send in
            await send(.batchRead(await Result { () async throws(StoreFailure) in try await queue.pending(batchSize) }))
        }
        .cancellable(id: CancelID.drain)
    }

    /// Tells the parent when the head of the queue changed (not on every read).
    private func reportHead(_ head: Item?, _ state: inout State) -> Effect<Action> {
        let now: OldestPending = head.map { .item($0.id) } ?? .empty
        guard now != state.oldestPending else { return .none }
        state.oldestPending = now
        return .send(.delegate(.oldestPendingChanged(head)))
    }

    private func fail(_ failure: UplinkFailure, _ state: inout State) -> Effect<Action> {
        state.step = nil
        state.consecutiveFailures += 1
        state.lastMessage = failure.message
        switch failure.kind {
        case .transient:
            let delay = backoff.delay(afterFailures: state.consecutiveFailures, retryAfter: failure.retryAfter,
                                      random: random)
            state.lastResult = .transientFailure
            state.status = .waitingToRetry
            state.nextRetry = clock.now().wall + delay
            state.retryDelay = delay
            // The retry reads the queue, rows stored meanwhile included.
            state.drainAgain = false
            return .merge(
                .send(.delegate(.failed(failure))),
                .run { [clock] send in
                    do {
                        try await clock.sleep(delay)
                        await send(.retryDue)
                    } catch {}  // cancelled: the network came back, or stopping
                }
                .cancellable(id: CancelID.retry, cancelInFlight: true)
            )
        case .permanent:
            state.lastResult = .permanentFailure
            state.status = .stopped
            state.nextRetry = nil
            state.retryDelay = nil
            // A row stored while the failing attempt was in flight is the next row: one new attempt.
            let again = state.drainAgain ? readBatch(&state) : .none
            return .merge(.send(.delegate(.failed(failure))), again)
        }
    }

    /// What a successful upload leaves to say: refusals, or rows the target did not take.
    static func message(for answer: Answer, noun: String) -> String? {
        if let first = answer.refused.first {
            return "the server refused \(answer.refused.count) of \(answer.sent) \(noun) (e.g. \(first.id): \(first.message))"
        }
        if answer.acknowledged.count < answer.sent {
            return "the server acknowledged \(answer.acknowledged.count) of \(answer.sent) \(noun); the rest are sent again"
        }
        return nil
    }
}
