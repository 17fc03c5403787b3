import CheckInModels
import CheckInStoreClient
import DependentsClient
import DependentsFeature
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// Dependents from the polled sources: the backend's and healthchecks' reports become statuses,
/// a dependent the source no longer lists says so, and a source that fails for longer than the
/// heartbeat allowance leaves its dependents `unknown`, never "checked in".
final class DependentsPolledTests: DependentsTestCase {
    final class Replies: Sendable {
        let next = Mutex<[Result<[String: SourcedDependent], UplinkFailure>]>([])
        let pings = Mutex<[String]>([])
    }

    let replies = Replies()

    var backend: DependentsClient {
        var client = DependentsClient.failing(kind: "backend")
        client.fetch = { [replies] in replies.next.withLock { $0.removeFirst() } }
        client.ping = { [replies] id in
            replies.pings.withLock { $0.append("ping " + id) }
            return .success(())
        }
        client.onIt = { [replies] id, watcher in
            replies.pings.withLock { $0.append("on it \(id) \(watcher)") }
            return .success(())
        }
        return client
    }

    static let gran = DependentEntry(name: "Gran", source: .backend(id: "dev-gran"), heartbeat: .seconds(330), fromConfig: true)
    static let shed = DependentEntry(name: "Shed", source: .healthchecks(check: "uncle-check-in"), heartbeat: .seconds(300),
                                     fromConfig: true)

    func appearPolled(_ store: TestStore<DependentsFeature>) async {
        store.send(.onAppear) {
            $0.isLoading = true
            $0.watchingSince = Self.start.uptime
        }
        await store.receive(.loaded(.success(StoredDependents()))) {
            $0.isLoading = false
            $0.isLoaded = true
            $0.dependents = $0.configured.map(Dependent.init(entry:))
        }
        await store.receive(.delegate(.subscriptionsChanged([])))
        await store.receive(.delegate(.contactsUpdated))
        await store.receive(.pollDue)
    }

    func testTheBackendsWordIsShownAndPolledAgainEachInterval() async {
        let overdue = DependentReport(status: .overdue, lastCheckIn: Self.lastCheckIn, deadline: Self.deadline)
        replies.next.withLock {
            $0 = [.success(["dev-gran": SourcedDependent(name: "Gran", report: overdue)]),
                  .success(["dev-gran": SourcedDependent(name: "Gran", report: self.report(.checkedIn))])]
        }
        let store = makeStore(configured: [Self.gran], sources: ["backend": backend])
        await appearPolled(store)
        await store.receive(.polled(kind: "backend", .success(["dev-gran": SourcedDependent(name: "Gran", report: overdue)]))) {
            $0.lastPolled["backend"] = Self.start.uptime
            $0.dependents[0].report = overdue
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .overdue
        }
        store.send(.buttonPressed)
        await store.receive(.onItSent(name: "Gran", failure: nil)) {
            $0.dependents[0].onItSent = true
            $0.lastOutcome = "told Gran you are on it"
        }
        XCTAssertEqual(replies.pings.withLock { $0 }, ["on it dev-gran Anna"])
        await testClock.advance(by: .seconds(60))
        await store.receive(.pollDue)
        await store.receive(.polled(kind: "backend", .success(["dev-gran": SourcedDependent(name: "Gran", report: report(.checkedIn))]))) {
            $0.lastPolled["backend"] = Self.start.uptime + .seconds(60)
            $0.dependents[0].report = self.report(.checkedIn)
            $0.dependents[0].heardAt = Self.start.wall + .seconds(60)
            $0.dependents[0].status = .checkedIn
            $0.dependents[0].onItSent = false
        }
        await stop(store)
    }

    func testAFailingSourceLeavesItsDependentsUnknownAfterTheAllowanceAndOneNotListedSaysSo() async {
        let failure = UplinkFailure(.transient, "the backend did not answer within 10 s")
        replies.next.withLock {
            $0 = [.success(["dev-gran": SourcedDependent(name: "Gran", report: self.report(.checkedIn))])]
                + Array(repeating: .failure(failure), count: 5) + [.success([:])]
        }
        let store = makeStore(configured: [Self.gran], sources: ["backend": backend])
        await appearPolled(store)
        await store.receive(.polled(kind: "backend", .success(["dev-gran": SourcedDependent(name: "Gran", report: report(.checkedIn))]))) {
            $0.lastPolled["backend"] = Self.start.uptime
            $0.dependents[0].report = self.report(.checkedIn)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .checkedIn
        }
        for _ in 1...5 {
            await testClock.advance(by: .seconds(60))
            await store.receive(.pollDue)
            await store.receive(.polled(kind: "backend", .failure(failure))) {
                $0.sourceFailures["backend"] = failure.message
                $0.dependents[0].problem = "the backend cannot be asked: the backend did not answer within 10 s"
            }
            XCTAssertEqual(store.state.dependents[0].status, .checkedIn, "the last word, within the allowance")
        }
        // 5.5 minutes without an answer: the heartbeat allowance has run out.
        await testClock.advance(by: .seconds(30))
        await store.receive(.silenceCheckDue) { $0.dependents[0].status = .unknown }
        await testClock.advance(by: .seconds(30))
        await store.receive(.pollDue)
        await store.receive(.polled(kind: "backend", .success([:]))) {
            $0.sourceFailures["backend"] = nil
            $0.lastPolled["backend"] = Self.start.uptime + .seconds(360)
            $0.dependents[0].report = nil
            $0.dependents[0].problem = "the backend does not list \"dev-gran\""
        }
        await stop(store)
    }

    func testHealthchecksCannotCarryAPingOrImOnIt() async {
        var healthchecks = DependentsClient.failing(kind: "healthchecks")
        healthchecks.fetch = { .success([:]) }
        let store = makeStore(configured: [Self.shed], sources: ["healthchecks": healthchecks], mqtt: false)
        await appearPolled(store)
        await store.receive(.polled(kind: "healthchecks", .success([:]))) {
            $0.lastPolled["healthchecks"] = Self.start.uptime
            $0.dependents[0].problem = "healthchecks does not list \"uncle-check-in\""
        }
        store.send(.ping(name: "Shed"))
        await receiveError(store, "Shed is watched through healthchecks, which cannot carry a ping or \"I'm on it\"")
        store.send(.buttonPressed)
        await receiveError(store, "nobody to ping: no dependent whose source carries a ping (healthchecks does not)")
        await stop(store)
    }
}
