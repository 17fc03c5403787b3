import CheckInModels
import CheckInStoreClient
import ComposableCore
import Synchronization
import TestSupport
import UploadFeature
import UplinkClient
import XCTest

/// Failures: transient ones back off (exponential, `Retry-After` honoured, cut short when the
/// network comes back); permanent ones wait for the next stored row or a restart; stop drops
/// whatever is still on its way.
final class RetryTests: UploadTestCase {
    let unavailable = UplinkFailure(.transient, "HTTP 503 from /v1/check-ins: maintenance", httpStatus: 503)
    let revoked = UplinkFailure(.permanent, "HTTP 401 from /v1/check-ins: token revoked", httpStatus: 401)

    /// From the start to the first batch of `rows` on its way (its head told to the parent).
    func startSending(_ store: TestStore<Uploader>, _ rows: [CheckInRecord]) async {
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await store.receive(.batchRead(.success(rows))) {
            $0.step = .sending(rows.map(\.id))
            $0.status = .uploading
            $0.lastAttempt = self.wall()
            $0.oldestPending = .item(rows[0].id)
        }
        await store.receive(.delegate(.oldestPendingChanged(rows[0])))
    }

    /// The last row of a drain acknowledged after failures: the parent hears of the reconnection.
    func acknowledgedAfterFailures(_ store: TestStore<Uploader>, _ rows: [CheckInRecord], at offset: Duration) async {
        let ids = rows.map(\.id)
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: ids)))) {
            $0.step = .recording(Uploader.Answer(sent: ids.count, acknowledged: ids, refused: []))
        }
        await store.receive(.answerRecorded(.success(ids.count))) {
            $0.step = .readingQueue
            $0.uploadedSinceStart += ids.count
            $0.lastSuccess = self.wall(offset)
            $0.lastResult = .ok
            $0.lastMessage = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.reconnected))
        await store.receive(.delegate(.acknowledged(ids)))
        await store.receive(.batchRead(.success([]))) {
            $0.step = nil
            $0.status = .idle
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))
    }

    func testATransientFailureBacksOffExponentiallyAndTheRetryUploads() async {
        let row = Self.row(1)
        let store = makeStore([row])
        target.answer(.failure(unavailable), .failure(unavailable))
        await startSending(store, [row])
        await store.receive(.batchSent(.failure(unavailable))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = self.unavailable.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
        }
        await store.receive(.delegate(.failed(unavailable)))

        await clock.advance(by: .seconds(2) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.retryDue) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        // The same head read again is not told again.
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.lastAttempt = self.wall(.seconds(2))
        }
        await store.receive(.batchSent(.failure(unavailable))) {
            $0.step = nil
            $0.consecutiveFailures = 2
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(6))
            $0.retryDelay = .seconds(4)
        }
        await store.receive(.delegate(.failed(unavailable)))

        await clock.advance(by: .seconds(4) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.retryDue) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.lastAttempt = self.wall(.seconds(6))
        }
        await acknowledgedAfterFailures(store, [row], at: .seconds(6))
        XCTAssertEqual(target.batches.count, 3)
        XCTAssertEqual(queue.uploaded, [row.id])
        await stop(store)
    }

    func testTheServersRetryAfterIsHonouredAboveTheBackoff() async {
        let row = Self.row(1)
        let store = makeStore([row])
        let busy = UplinkFailure(.transient, "HTTP 429 from /v1/check-ins", httpStatus: 429, retryAfter: .seconds(30))
        target.answer(.failure(busy))
        await startSending(store, [row])
        await store.receive(.batchSent(.failure(busy))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = busy.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(30))
            $0.retryDelay = .seconds(30)
        }
        await store.receive(.delegate(.failed(busy)))
        await clock.advance(by: .seconds(30) - .milliseconds(1))
        await store.expectNoAction()
        await clock.advance(by: .milliseconds(1))
        await store.receive(.retryDue) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.lastAttempt = self.wall(.seconds(30))
        }
        await acknowledgedAfterFailures(store, [row], at: .seconds(30))
        await stop(store)
    }

    func testTheDelayIsTheRandomSourcesPickWithinTheBound() async {
        let row = Self.row(1)
        let asked = Mutex<[ClosedRange<Int64>]>([])
        let store = makeStore([row], random: { range in
            asked.withLock { $0.append(range) }
            return 1234
        })
        target.answer(.failure(unavailable))
        await startSending(store, [row])
        await store.receive(.batchSent(.failure(unavailable))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = self.unavailable.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.milliseconds(1234))
            $0.retryDelay = .milliseconds(1234)
        }
        await store.receive(.delegate(.failed(unavailable)))
        XCTAssertEqual(asked.withLock { $0 }, [0...2000], "full jitter over the first bound, 2 s")
        store.send(.stop) {
            $0.isRunning = false
            $0.status = .idle
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await store.finish()
    }

    func testAPermanentFailureWaitsForTheNextStoredRowThenMakesOneAttempt() async {
        let first = Self.row(1), second = Self.row(2)
        let store = makeStore([first])
        target.answer(.failure(revoked), .failure(revoked))
        await startSending(store, [first])
        await store.receive(.batchSent(.failure(revoked))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = self.revoked.message
            $0.lastResult = .permanentFailure
            $0.status = .stopped
        }
        await store.receive(.delegate(.failed(revoked)))

        // No timer: an hour later nothing has been tried, and the network coming back changes nothing.
        await clock.advance(by: .seconds(3600))
        store.send(.networkChanged)
        await store.expectNoAction()
        XCTAssertEqual(target.batches.count, 1)
        XCTAssertEqual(queue.pending, [first.id], "the rows stay queued")

        queue.store(second)
        store.send(.itemStored) { $0.step = .readingQueue }
        await store.receive(.batchRead(.success([first, second]))) {
            $0.step = .sending([first.id, second.id])
            $0.status = .uploading
            $0.lastAttempt = self.wall(.seconds(3600))
        }
        await store.receive(.batchSent(.failure(revoked))) {
            $0.step = nil
            $0.consecutiveFailures = 2
            $0.status = .stopped
        }
        await store.receive(.delegate(.failed(revoked)))
        XCTAssertEqual(target.batches.count, 2, "one attempt per stored row")

        // The token was fixed on the backend: the next check-in goes through with the rest.
        await clock.advance(by: .seconds(60))
        let third = Self.row(3)
        queue.store(third)
        store.send(.itemStored) { $0.step = .readingQueue }
        await store.receive(.batchRead(.success([first, second]))) {
            $0.step = .sending([first.id, second.id])
            $0.status = .uploading
            $0.lastAttempt = self.wall(.seconds(3660))
        }
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [first.id, second.id])))) {
            $0.step = .recording(Uploader.Answer(sent: 2, acknowledged: [first.id, second.id], refused: []))
        }
        await store.receive(.answerRecorded(.success(2))) {
            $0.step = .readingQueue
            $0.uploadedSinceStart = 2
            $0.lastSuccess = self.wall(.seconds(3660))
            $0.lastResult = .ok
            $0.lastMessage = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.reconnected))
        await store.receive(.delegate(.acknowledged([first.id, second.id])))
        await drainAcknowledged(store, [[third]], at: .seconds(3660))
        await stop(store)
    }

    func testARowStoredWhileTheFailingAttemptWasOnItsWayIsTheNextRow() async {
        let first = Self.row(1), second = Self.row(2)
        let store = makeStore([first])
        target.answer(.failure(revoked))
        target.gate.shut()
        await startSending(store, [first])
        queue.store(second)
        store.send(.itemStored) { $0.drainAgain = true }
        target.gate.open()
        await store.receive(.batchSent(.failure(revoked))) {
            $0.step = .readingQueue
            $0.drainAgain = false
            $0.consecutiveFailures = 1
            $0.lastMessage = self.revoked.message
            $0.lastResult = .permanentFailure
            $0.status = .stopped
        }
        await store.receive(.delegate(.failed(revoked)))
        await store.receive(.batchRead(.success([first, second]))) {
            $0.step = .sending([first.id, second.id])
            $0.status = .uploading
        }
        await acknowledgedAfterFailures(store, [first, second], at: .zero)
        await stop(store)
    }

    func testTheNetworkComingBackCutsTheBackoffShortButAStoredRowDoesNot() async {
        let first = Self.row(1), second = Self.row(2)
        let store = makeStore([first])
        // Retry-After: an hour, so only the network change can bring the retry.
        let later = UplinkFailure(.transient, "HTTP 503 from /v1/check-ins", httpStatus: 503, retryAfter: .seconds(3600))
        target.answer(.failure(later))
        await startSending(store, [first])
        await store.receive(.batchSent(.failure(later))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = later.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(3600))
            $0.retryDelay = .seconds(3600)
        }
        await store.receive(.delegate(.failed(later)))

        queue.store(second)
        store.send(.itemStored)
        await store.expectNoAction()
        XCTAssertEqual(queue.reads, 1, "a stored row waits for the retry")

        await clock.advance(by: .seconds(10))
        let before = store.state
        store.send(.networkChanged) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        XCTAssertEqual(Uploader.log(.networkChanged, before: before, after: store.state), [
            LogEntry(.info, "network changed: retrying the check-ins upload now instead of at the end of the backoff"),
        ])
        await store.receive(.batchRead(.success([first, second]))) {
            $0.step = .sending([first.id, second.id])
            $0.lastAttempt = self.wall(.seconds(10))
        }
        await acknowledgedAfterFailures(store, [first, second], at: .seconds(10))
        XCTAssertEqual(queue.uploaded, [first.id, second.id])

        // The cancelled backoff never fires.
        await clock.advance(by: .seconds(3600))
        await store.expectNoAction()
        await stop(store)
    }

    func testStopDropsAnAnswerStillOnItsWayAndNothingIsMarked() async {
        let row = Self.row(1)
        let store = makeStore([row])
        target.gate.shut()
        await startSending(store, [row])
        await Task.megaYield()
        XCTAssertEqual(target.gate.waiting, 1, "the request is on its way")
        store.send(.stop) {
            $0.isRunning = false
            $0.step = nil
            $0.status = .idle
        }
        target.gate.open()
        await store.expectNoAction()
        await store.finish()
        XCTAssertEqual(queue.uploaded, [], "the answer came after the stop: the row is sent again after a restart")
        XCTAssertEqual(queue.pending, [row.id])
    }

    func testStopCancelsTheBackoffAndARestartDrainsAgainEvenAfterAPermanentFailure() async {
        let row = Self.row(1)
        let store = makeStore([row])
        target.answer(.failure(revoked))
        await startSending(store, [row])
        await store.receive(.batchSent(.failure(revoked))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = self.revoked.message
            $0.lastResult = .permanentFailure
            $0.status = .stopped
        }
        await store.receive(.delegate(.failed(revoked)))
        store.send(.stop) { $0.isRunning = false }
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.status = .uploading
        }
        await acknowledgedAfterFailures(store, [row], at: .zero)
        await stop(store)
    }

    func testAQueueThatCannotBeReadIsATransientFailure() async {
        let row = Self.row(1)
        let store = makeStore([row])
        queue.failReads(with: StoreFailure(.other, "disk I/O error"))
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        let failure = UplinkFailure(.transient, "could not read the check-ins upload queue: disk I/O error")
        await store.receive(.batchRead(.failure(StoreFailure(.other, "disk I/O error")))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = failure.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
        }
        await store.receive(.delegate(.failed(failure)))
        queue.failReads(with: nil)
        await clock.advance(by: .seconds(2))
        await store.receive(.retryDue) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.lastAttempt = self.wall(.seconds(2))
            $0.oldestPending = .item(row.id)
        }
        await store.receive(.delegate(.oldestPendingChanged(row)))
        await acknowledgedAfterFailures(store, [row], at: .seconds(2))
        await stop(store)
    }

    func testAnAnswerThatCannotBeRecordedIsSentAgainAfterTheBackoff() async {
        let row = Self.row(1)
        let store = makeStore([row])
        queue.failMarks(with: StoreFailure(.full, "database or disk is full"))
        await startSending(store, [row])
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [row.id])))) {
            $0.step = .recording(Uploader.Answer(sent: 1, acknowledged: [row.id], refused: []))
        }
        let failure = UplinkFailure(.transient, "uploaded, but could not record the server's answer "
                                    + "(the check-ins will be sent again): database or disk is full")
        await store.receive(.answerRecorded(.failure(StoreFailure(.full, "database or disk is full")))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = failure.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
        }
        await store.receive(.delegate(.failed(failure)))
        queue.failMarks(with: nil)
        await clock.advance(by: .seconds(2))
        await store.receive(.retryDue) {
            $0.step = .readingQueue
            $0.status = .uploading
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.lastAttempt = self.wall(.seconds(2))
        }
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [row.id])))) {
            $0.step = .recording(Uploader.Answer(sent: 1, acknowledged: [row.id], refused: []))
        }
        await store.receive(.answerRecorded(.success(1))) {
            $0.step = .readingQueue
            $0.uploadedSinceStart = 1
            $0.lastSuccess = self.wall(.seconds(2))
            $0.lastResult = .ok
            $0.lastMessage = nil
            $0.consecutiveFailures = 0
        }
        await store.receive(.delegate(.reconnected))
        await store.receive(.delegate(.acknowledged([row.id])))
        await store.receive(.batchRead(.success([]))) {
            $0.step = nil
            $0.status = .idle
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))
        XCTAssertEqual(target.batches, [[row.id], [row.id]], "sent twice; the target de-duplicates by id")
        await stop(store)
    }
}
