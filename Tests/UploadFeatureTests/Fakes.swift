import CheckInModels
import CheckInStoreClient
import Synchronization
import TestSupport
import UplinkClient

/// An in-memory upload queue (the SQLite queues have their own tests on real files): rows in order,
/// what was marked uploaded and refused, reads and writes that can fail or be held.
final class FakeQueue<Item: Identifiable & Sendable>: Sendable where Item.ID == CheckInID {
    struct Contents {
        var pending: [Item]
        var uploaded: [CheckInID] = []
        var uploadedAt: [WallTime] = []
        var refused: [RefusedItem] = []
        var reads = 0
        var failReads: StoreFailure?
        var failMarks: StoreFailure?
    }

    let contents: Mutex<Contents>
    /// Shut: a read takes its rows, then waits (a commit after that is not in its answer).
    let readGate = Gate()

    init(_ rows: [Item]) {
        contents = Mutex(Contents(pending: rows))
    }

    var client: UploadQueueClient<Item> {
        var client = UploadQueueClient<Item>.failing("FakeQueue")
        client.pending = { [self] limit throws(StoreFailure) in
            let read = contents.withLock { contents -> Result<[Item], StoreFailure> in
                contents.reads += 1
                if let failure = contents.failReads { return .failure(failure) }
                return .success(Array(contents.pending.prefix(limit)))
            }
            await readGate.pass()
            return try read.get()
        }
        client.markUploaded = { [self] ids, at throws(StoreFailure) in
            try contents.withLock { contents throws(StoreFailure) in
                if let failure = contents.failMarks { throw failure }
                let before = contents.pending.count
                contents.pending.removeAll { ids.contains($0.id) }
                contents.uploaded += ids
                contents.uploadedAt.append(at)
                return before - contents.pending.count
            }
        }
        client.markRefused = { [self] refusals throws(StoreFailure) in
            try contents.withLock { contents throws(StoreFailure) in
                if let failure = contents.failMarks { throw failure }
                let before = contents.pending.count
                contents.pending.removeAll { row in refusals.contains { $0.id == row.id } }
                contents.refused += refusals
                return before - contents.pending.count
            }
        }
        return client
    }

    func store(_ rows: Item...) { contents.withLock { $0.pending += rows } }
    var pending: [CheckInID] { contents.withLock { $0.pending.map(\.id) } }
    var uploaded: [CheckInID] { contents.withLock { $0.uploaded } }
    var refused: [RefusedItem] { contents.withLock { $0.refused } }
    var reads: Int { contents.withLock { $0.reads } }
    func failReads(with failure: StoreFailure?) { contents.withLock { $0.failReads = failure } }
    func failMarks(with failure: StoreFailure?) { contents.withLock { $0.failMarks = failure } }
}

/// The target as a script: each request takes the next scripted answer; with none left it
/// acknowledges the whole batch. Every batch sent is kept, by id.
final class FakeTarget<Item: Identifiable & Sendable>: Sendable where Item.ID == CheckInID {
    private let state = Mutex<(script: [Result<UploadOutcome, UplinkFailure>], batches: [[CheckInID]])>(([], []))
    /// Shut: a request is sent, then waits for its answer.
    let gate = Gate()

    func answer(_ results: Result<UploadOutcome, UplinkFailure>...) {
        state.withLock { $0.script += results }
    }

    var batches: [[CheckInID]] { state.withLock { $0.batches } }

    var request: @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure> {
        { [self] batch in
            let ids = batch.map(\.id)
            let answer = state.withLock { state in
                state.batches.append(ids)
                return state.script.isEmpty ? .success(UploadOutcome(acknowledged: ids)) : state.script.removeFirst()
            }
            await gate.pass()
            return answer
        }
    }
}
