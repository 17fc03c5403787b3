import CheckInModels
import CheckInStoreClient
import Clocks
import Synchronization
import TestSupport
import UplinkClient

/// The backend's long poll as a script. Each poll takes the next answer; with none left it holds
/// the poll for its whole `wait` (on the test clock) and answers with no pings, as the backend does.
/// Every poll is kept with its cursor and wait.
final class FakePingBackend: Sendable {
    enum Answer {
        case now(Result<PingPoll, UplinkFailure>)
        case after(Duration, Result<PingPoll, UplinkFailure>)
    }

    struct Poll: Equatable {
        var cursor: String?
        var wait: Duration
    }

    private let state = Mutex<(script: [Answer], polls: [Poll])>(([], []))
    let clock: TestClock<Duration>
    /// Shut: a poll waits here before it answers (whatever happened meanwhile).
    let gate = Gate()

    init(clock: TestClock<Duration>) {
        self.clock = clock
    }

    func answer(_ answers: Answer...) { state.withLock { $0.script += answers } }
    var polls: [Poll] { state.withLock { $0.polls } }

    var pendingPings: @Sendable (String?, Duration) async -> Result<PingPoll, UplinkFailure> {
        { [self] cursor, wait in
            let answer = state.withLock { state in
                state.polls.append(Poll(cursor: cursor, wait: wait))
                return state.script.isEmpty
                    ? .after(wait, .success(PingPoll(pings: [], cursor: cursor ?? "0"))) : state.script.removeFirst()
            }
            await gate.pass()
            switch answer {
            case let .now(result):
                return result
            case let .after(delay, result):
                try? await clock.sleep(for: delay)
                return result
            }
        }
    }
}

/// The store's pending pings: known ones are left alone, and every pending one is returned.
final class FakePingStore: Sendable {
    private let state = Mutex<(pending: [PendingPing], failure: StoreFailure?)>(([], nil))

    init(pending: [PendingPing] = []) {
        state.withLock { $0.pending = pending }
    }

    func fail(with failure: StoreFailure?) { state.withLock { $0.failure = failure } }
    var pending: [PendingPing] { state.withLock { $0.pending } }

    var client: CheckInStoreClient {
        var client = CheckInStoreClient.failing
        client.savePings = { [self] pings throws(StoreFailure) in
            try state.withLock { state throws(StoreFailure) in
                if let failure = state.failure { throw failure }
                for ping in pings where !state.pending.contains(where: { $0.id == ping.id }) {
                    state.pending.append(ping)
                }
                return state.pending
            }
        }
        return client
    }
}
