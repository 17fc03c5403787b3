import Backoff
import CheckInModels
import Clocks
import ConcurrencyExtras
import DeviceClock
import TestSupport
import UploadFeature
import UplinkClient
import XCTest

/// Shared set-up: a test clock for "now" and sleeping, an in-memory queue, a scripted target, and a
/// random source that always picks the top of the range (so a backoff is exactly its bound).
@MainActor
class UploadTestCase: XCTestCase {
    // Effects and the test clock must interleave deterministically (see CheckInFeatureTests).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    typealias Uploader = UploadFeature<CheckInRecord>

    nonisolated static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000), bootID: "boot-a",
        wallClockSynchronized: true)
    static let endpoint = "http://127.0.0.1:9/backend"

    var clock: TestClock<Duration>!
    var queue: FakeQueue<CheckInRecord>!
    var target: FakeTarget<CheckInRecord>!

    func makeStore(
        _ rows: [CheckInRecord] = [], batchSize: Int = 2, backoff: Backoff = .network(cap: .seconds(60)),
        random: @escaping @Sendable (ClosedRange<Int64>) -> Int64 = { $0.upperBound }
    ) -> TestStore<Uploader> {
        clock = TestClock()
        queue = FakeQueue(rows)
        target = FakeTarget()
        let feature = Uploader(queue: queue.client, request: target.request,
                               clock: .driven(by: clock, startingAt: Self.start), backoff: backoff, random: random,
                               batchSize: batchSize)
        return TestStore(initialState: Uploader.State(noun: "check-ins", endpoint: Self.endpoint), reducer: feature)
    }

    /// The n-th check-in of a test, pressed n minutes before the start.
    nonisolated static func row(_ n: UInt64) -> CheckInRecord {
        CheckInRecord(id: CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | n),
                      at: start.advanced(by: .seconds(-60 * Int64(n))), source: .button)
    }

    nonisolated static func rows(_ numbers: ClosedRange<UInt64>) -> [CheckInRecord] { numbers.map(row) }

    /// The wall time `offset` after the test's start.
    nonisolated func wall(_ offset: Duration = .zero) -> WallTime { Self.start.wall + offset }

    /// Drains `batches` (already queued) one request each, all acknowledged, from a read already
    /// asked for, ending idle with the queue empty. `headKnown`: the first batch's head was
    /// already told to the parent.
    func drainAcknowledged(_ store: TestStore<Uploader>, _ batches: [[CheckInRecord]], at offset: Duration = .zero,
                           headKnown: Bool = false, file: StaticString = #filePath, line: UInt = #line) async {
        for (index, batch) in batches.enumerated() {
            await store.receive(.batchRead(.success(batch)), assert: {
                $0.step = .sending(batch.map(\.id))
                $0.status = .uploading
                $0.lastAttempt = self.wall(offset)
                $0.oldestPending = .item(batch[0].id)
            }, file: file, line: line)
            if !headKnown || index > 0 {
                await store.receive(.delegate(.oldestPendingChanged(batch[0])), file: file, line: line)
            }
            await store.receive(.batchSent(.success(UploadOutcome(acknowledged: batch.map(\.id)))), assert: {
                $0.step = .recording(Uploader.Answer(sent: batch.count, acknowledged: batch.map(\.id), refused: []))
            }, file: file, line: line)
            await store.receive(.answerRecorded(.success(batch.count)), assert: {
                $0.step = .readingQueue
                $0.uploadedSinceStart += batch.count
                $0.lastSuccess = self.wall(offset)
                $0.lastResult = .ok
                $0.lastMessage = nil
                $0.consecutiveFailures = 0
            }, file: file, line: line)
            await store.receive(.delegate(.acknowledged(batch.map(\.id))), file: file, line: line)
        }
        await store.receive(.batchRead(.success([])), assert: {
            $0.step = nil
            $0.status = .idle
            $0.oldestPending = .empty
        }, file: file, line: line)
        await store.receive(.delegate(.oldestPendingChanged(nil)), file: file, line: line)
    }

    func stop(_ store: TestStore<Uploader>) async {
        store.send(.stop) { $0.isRunning = false }
        await store.finish()
    }
}
