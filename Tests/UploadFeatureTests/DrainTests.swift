import CheckInModels
import CheckInStoreClient
import ComposableCore
import TestSupport
import UploadFeature
import UplinkClient
import XCTest

/// Draining: in order, in batches, as soon as a row is stored; marked only once acknowledged;
/// refusals leave the queue; the head of the queue is told to the parent when it changes.
final class DrainTests: UploadTestCase {
    func testStartDrainsTheQueueOldestFirstInBatchesAndMarksEachRowOnceAcknowledged() async {
        let rows = Self.rows(1...5)
        let store = makeStore(rows, batchSize: 2)
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await drainAcknowledged(store, [Array(rows[0..<2]), Array(rows[2..<4]), [rows[4]]])
        XCTAssertEqual(target.batches, [[rows[0].id, rows[1].id], [rows[2].id, rows[3].id], [rows[4].id]])
        XCTAssertEqual(queue.uploaded, rows.map(\.id), "each row marked once, in order")
        XCTAssertEqual(queue.pending, [])
        XCTAssertEqual(store.state.uploadedSinceStart, 5)

        store.send(.start)  // already running: nothing more
        await stop(store)
    }

    func testAStoredRowIsUploadedAtOnceAndNothingMovesBeforeTheStart() async {
        let store = makeStore()
        store.send(.itemStored)
        store.send(.networkChanged)
        XCTAssertEqual(queue.reads, 0, "not running: nothing is read")

        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await store.receive(.batchRead(.success([]))) {
            $0.step = nil
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))

        await clock.advance(by: .seconds(30))
        let row = Self.row(1)
        queue.store(row)
        store.send(.itemStored) { $0.step = .readingQueue }
        await drainAcknowledged(store, [[row]], at: .seconds(30))
        XCTAssertEqual(queue.uploaded, [row.id])
        await stop(store)
    }

    func testARowCommittedAfterAReadBeganIsReadOnceMoreBeforeResting() async {
        let store = makeStore()
        queue.readGate.shut()
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await Task.megaYield()
        XCTAssertEqual(queue.readGate.waiting, 1, "the read has its (empty) rows and is still on its way")
        let row = Self.row(1)
        queue.store(row)
        store.send(.itemStored) { $0.drainAgain = true }
        queue.readGate.open()
        await store.receive(.batchRead(.success([]))) {
            $0.step = .readingQueue
            $0.drainAgain = false
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))
        await drainAcknowledged(store, [[row]])
        XCTAssertEqual(queue.uploaded, [row.id], "not left waiting for the next check-in")
        await stop(store)
    }

    func testRowsTheTargetDidNotAcknowledgeAreSentAgainAtOnceAndForeignIDsAreIgnored() async {
        let rows = Self.rows(1...3)
        let store = makeStore(rows, batchSize: 2)
        let foreign = Self.row(99).id
        target.answer(.success(UploadOutcome(acknowledged: [rows[0].id, foreign])))
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await store.receive(.batchRead(.success([rows[0], rows[1]]))) {
            $0.step = .sending([rows[0].id, rows[1].id])
            $0.status = .uploading
            $0.lastAttempt = self.wall()
            $0.oldestPending = .item(rows[0].id)
        }
        await store.receive(.delegate(.oldestPendingChanged(rows[0])))
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [rows[0].id, foreign])))) {
            $0.step = .recording(Uploader.Answer(sent: 2, acknowledged: [rows[0].id], refused: []))
        }
        await store.receive(.answerRecorded(.success(1))) {
            $0.step = .readingQueue
            $0.uploadedSinceStart = 1
            $0.lastSuccess = self.wall()
            $0.lastResult = .ok
            $0.lastMessage = "the server acknowledged 1 of 2 check-ins; the rest are sent again"
        }
        await store.receive(.delegate(.acknowledged([rows[0].id])))
        await drainAcknowledged(store, [[rows[1], rows[2]]])
        XCTAssertEqual(target.batches, [[rows[0].id, rows[1].id], [rows[1].id, rows[2].id]])
        XCTAssertEqual(queue.uploaded, rows.map(\.id))
        await stop(store)
    }

    func testARefusedRowLeavesTheQueueWithTheTargetsMessageAndTheRestMovesOn() async {
        let rows = Self.rows(1...3)
        let store = makeStore(rows, batchSize: 3)
        let refusal = RefusedItem(id: rows[1].id, message: "checkIns[1]: wallTime is not RFC 3339")
        // A refusal of a row it also acknowledged counts as acknowledged.
        let outcome = UploadOutcome(acknowledged: [rows[0].id, rows[2].id],
                                    refused: [refusal, RefusedItem(id: rows[2].id, message: "duplicate")])
        target.answer(.success(outcome))
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
        let answer = Uploader.Answer(sent: 3, acknowledged: [rows[0].id, rows[2].id], refused: [refusal])
        await store.receive(.batchSent(.success(outcome))) { $0.step = .recording(answer) }
        let before = store.state
        await store.receive(.answerRecorded(.success(2))) {
            $0.step = .readingQueue
            $0.uploadedSinceStart = 2
            $0.refusedSinceStart = 1
            $0.lastSuccess = self.wall()
            $0.lastResult = .ok
            $0.lastMessage = "the server refused 1 of 3 check-ins (e.g. \(rows[1].id): checkIns[1]: wallTime is not RFC 3339)"
        }
        XCTAssertEqual(Uploader.log(.answerRecorded(.success(2)), before: before, after: store.state), [
            LogEntry(.error, "\(Self.endpoint) refused \(rows[1].id) for good; it leaves the check-ins upload queue "
                     + "(`lifesignalctl queue` lists it): checkIns[1]: wallTime is not RFC 3339"),
            LogEntry(.info, "uploaded check-ins", metadata: ["sent": "3", "acknowledged": "2", "endpoint": Self.endpoint]),
        ])
        await store.receive(.delegate(.acknowledged([rows[0].id, rows[2].id])))
        await store.receive(.batchRead(.success([]))) {
            $0.step = nil
            $0.status = .idle
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))
        XCTAssertEqual(queue.refused, [refusal])
        XCTAssertEqual(queue.uploaded, [rows[0].id, rows[2].id])
        XCTAssertEqual(queue.pending, [], "the refused row is not sent again")
        await stop(store)
    }

    func testAnAnswerThatTakesNothingIsATransientFailureAndTheRowsStayQueued() async {
        let row = Self.row(1)
        let store = makeStore([row])
        target.answer(.success(UploadOutcome(acknowledged: [Self.row(7).id])))
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        await store.receive(.batchRead(.success([row]))) {
            $0.step = .sending([row.id])
            $0.status = .uploading
            $0.lastAttempt = self.wall()
            $0.oldestPending = .item(row.id)
        }
        await store.receive(.delegate(.oldestPendingChanged(row)))
        let failure = UplinkFailure(.transient, "\(Self.endpoint) acknowledged none of the 1 check-ins sent; they stay queued")
        await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [Self.row(7).id])))) {
            $0.step = nil
            $0.consecutiveFailures = 1
            $0.lastMessage = failure.message
            $0.lastResult = .transientFailure
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(2))
            $0.retryDelay = .seconds(2)
        }
        await store.receive(.delegate(.failed(failure)))
        XCTAssertEqual(queue.pending, [row.id])
        store.send(.stop) {
            $0.isRunning = false
            $0.status = .idle
            $0.nextRetry = nil
            $0.retryDelay = nil
        }
        await clock.advance(by: .seconds(10))
        await store.finish()
    }

    func testHelpAlertsGoOneAtATimeThroughTheSameReducer() async {
        clock = .init()
        let alerts = [1, 2].map { n in
            AlertRecord(id: CheckInID(high: 0xA1, low: 0x8000_0000_0000_0000 | n), at: Self.start, source: .button)
        }
        let alertQueue = FakeQueue(alerts)
        let alertTarget = FakeTarget<AlertRecord>()
        let store = TestStore(
            initialState: UploadFeature<AlertRecord>.State(noun: "alerts", endpoint: Self.endpoint),
            reducer: UploadFeature<AlertRecord>(queue: alertQueue.client, request: alertTarget.request,
                                                clock: .driven(by: clock, startingAt: Self.start),
                                                backoff: .network(cap: .seconds(60)), random: { $0.upperBound },
                                                batchSize: 1))
        store.send(.start) {
            $0.isRunning = true
            $0.step = .readingQueue
        }
        for alert in alerts {
            await store.receive(.batchRead(.success([alert]))) {
                $0.step = .sending([alert.id])
                $0.status = .uploading
                $0.lastAttempt = self.wall()
                $0.oldestPending = .item(alert.id)
            }
            await store.receive(.delegate(.oldestPendingChanged(alert)))
            await store.receive(.batchSent(.success(UploadOutcome(acknowledged: [alert.id])))) {
                $0.step = .recording(UploadFeature<AlertRecord>.Answer(sent: 1, acknowledged: [alert.id], refused: []))
            }
            await store.receive(.answerRecorded(.success(1))) {
                $0.step = .readingQueue
                $0.uploadedSinceStart += 1
                $0.lastSuccess = self.wall()
                $0.lastResult = .ok
            }
            await store.receive(.delegate(.acknowledged([alert.id])))
        }
        await store.receive(.batchRead(.success([]))) {
            $0.step = nil
            $0.status = .idle
            $0.oldestPending = .empty
        }
        await store.receive(.delegate(.oldestPendingChanged(nil)))
        XCTAssertEqual(alertTarget.batches, alerts.map { [$0.id] })
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }
}
