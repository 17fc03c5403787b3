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

/// The rest of the actions: a polled source that refuses to follow or unfollow, "I'm on it" and
/// cleared pings that fail, and a device that is both answering with its check-in.
final class DependentsOutcomeTests: DependentsTestCase {
    final class Calls: Sendable { let made = Mutex<[String]>([]) }
    let calls = Calls()

    var backend: DependentsClient {
        var client = DependentsClient.failing(kind: "backend")
        client.fetch = { .success([:]) }
        client.add = { [calls] id in
            calls.made.withLock { $0.append("add \(id)") }
            return id == "dev-gran" ? .success(SourcedDependent(name: "Gran", report: DependentReport(status: .unknown)))
                : .failure(UplinkFailure(.permanent, "no device \(id) (HTTP 404)", httpStatus: 404))
        }
        client.remove = { [calls] id in
            calls.made.withLock { $0.append("remove \(id)") }
            return .failure(UplinkFailure(.transient, "the backend did not answer"))
        }
        client.onIt = { _, _ in .failure(UplinkFailure(.transient, "the backend did not answer")) }
        client.clearPing = { _ in .failure(UplinkFailure(.permanent, "no ping to withdraw (HTTP 404)", httpStatus: 404)) }
        return client
    }

    func testABackendCodeIsFollowedThereFirstAndAnUnknownIdIsNotKept() async {
        let store = makeStore(sources: ["backend": backend], mqtt: false)
        await appearPolled(store)
        store.send(.add(PairingCode(source: .backend(id: "dev-nobody"), name: "Nobody", heartbeat: .seconds(600)), name: nil))
        await receiveError(store, "Nobody was not added: the backend says: no device dev-nobody (HTTP 404)")
        XCTAssertEqual(stored.contents.withLock { $0.entries }, [], "not kept when the backend does not know them")

        let gran = DependentEntry(name: "Gran", source: .backend(id: "dev-gran"), heartbeat: .seconds(600))
        store.send(.add(PairingCode(source: gran.source, name: "Gran", heartbeat: .seconds(600)), name: nil))
        await store.receive(.added(gran, nil)) {
            $0.dependents = [Dependent(entry: gran)]
            $0.lastOutcome = "added Gran"
        }
        await store.receive(.delegate(.subscriptionsChanged([])))
        await store.receive(.delegate(.contactsUpdated))
        await store.receive(.pollDue)
        await store.receive(.polled(kind: "backend", .success([:]))) {
            $0.lastPolled["backend"] = Self.start.uptime
            $0.dependents[0].problem = "the backend does not list \"dev-gran\""
        }

        // Unfollowing needs the backend too: while it does not answer, they stay.
        store.send(.remove(name: "Gran"))
        await receiveError(store, "Gran was not removed: the backend says: the backend did not answer")
        XCTAssertEqual(store.state.dependents.map(\.entry.name), ["Gran"])
        XCTAssertEqual(calls.made.withLock { $0 }, ["add dev-nobody", "add dev-gran", "remove dev-gran"])

        // "I'm on it" and a withdrawn ping that fail say so, and change nothing else.
        store.send(.onIt(name: "Gran"))
        await store.receive(.onItSent(name: "Gran", failure: "not sent to the backend: the backend did not answer"))
        await receiveError(store, "Gran: not sent to the backend: the backend did not answer")
        XCTAssertFalse(store.state.dependents[0].onItSent)
        store.send(.clearPing(name: "Gran"))
        await store.receive(.pingCleared(name: "Gran", failure: "not sent to the backend: no ping to withdraw (HTTP 404)"))
        await receiveError(store, "Gran: not sent to the backend: no ping to withdraw (HTTP 404)")
        await stop(store)
    }

    func testOnADeviceThatIsBothItsCheckInAnswersOnlyThoseWhoNeedSomeone() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        // All well: a check-in pings nobody (only a watcher's own press pings everyone).
        store.send(.answerThoseWhoNeedSomeone)
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in", helpAlert: true))) {
            $0.dependents[0].report = self.report(.helpAlert)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .helpAlert
        }
        store.send(.answerThoseWhoNeedSomeone)
        await store.receive(.onItSent(name: "Mum", failure: nil)) {
            $0.dependents[0].onItSent = true
            $0.lastOutcome = "told Mum you are on it"
        }
        // Once said, a second check-in does not say it again.
        store.send(.answerThoseWhoNeedSomeone)
        XCTAssertEqual(published.topics, ["lifesignal/mum/cmd/on_it"])
        await stop(store)
    }
}
