import CheckInModels
import RespondersClient
import RespondersFeature
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// The backend's and healthchecks' people: asked at the start and every poll interval, asked
/// again for `lifesignalctl responders`; a source that fails keeps its last list, said to be not
/// current; the reach line after the start.
final class RespondersPolledTests: RespondersTestCase {
    static let bob = SourcedResponder(id: "r-1", name: "Bob", kind: "contact", channels: ["app", "sms"], told: everything)
    static let mail = SourcedResponder(id: "c-9", name: "email", kind: "email", told: [.missedCheckIn])
    static let paths = ResponderPaths(backend: "http://127.0.0.1:8080", healthchecks: "http://127.0.0.1:8080/api/v3")

    func sources(backend: [SourcedResponder], healthchecks: [SourcedResponder]) -> [String: RespondersClient] {
        ["backend": RespondersClient(kind: "backend", endpoint: "backend", fetch: { .success(backend) }),
         "healthchecks": RespondersClient(kind: "healthchecks", endpoint: "hc", fetch: { .success(healthchecks) })]
    }

    func testBothSourcesAreAskedAtTheStartNotOnATimerAndTheReachLineSaysWhoIsTold() async {
        let store = makeStore(paths: Self.paths, sources: sources(backend: [Self.bob], healthchecks: [Self.mail]))
        await appear(store)
        await store.receive(.polled(kind: "backend", .success([Self.bob]))) {
            $0.polled = ["backend"]
            $0.responders = [Responder(source: .backend(id: "r-1"), name: "Bob", kind: "contact", channels: ["app", "sms"],
                                       told: Self.everything)]
        }
        await store.receive(.delegate(.respondersUpdated))
        await store.receive(.polled(kind: "healthchecks", .success([Self.mail]))) {
            $0.polled = ["backend", "healthchecks"]
            $0.responders.append(Responder(source: .healthchecks(id: "c-9"), name: "email", kind: "email", told: [.missedCheckIn]))
        }
        await store.receive(.delegate(.respondersUpdated))
        await testClock.advance(by: .seconds(30))
        await store.receive(.announceReach) {
            $0.announceDue = true
            $0.reachAnnounced = true
        }
        XCTAssertEqual(store.state.reach.line, "A missed check-in is told to: Bob (contact through the backend: app, sms); "
                       + "email (healthchecks email). A help alert is told to: Bob (contact through the backend: app, sms).")
        // Nothing wakes the device for them later; a refresh asks again, and the same lists change nothing.
        await testClock.advance(by: .seconds(3600))
        await store.expectNoAction()
        store.send(.refresh) { $0.refreshing = ["backend", "healthchecks"] }
        await store.receive(.polled(kind: "backend", .success([Self.bob]))) { $0.refreshing = ["healthchecks"] }
        await store.receive(.polled(kind: "healthchecks", .success([Self.mail]))) { $0.refreshing = [] }
        await store.receive(.delegate(.refreshed))
        await stop(store)
    }

    func testAFailingSourceKeepsItsLastListAndTheReachLineSaysItIsNotCurrent() async {
        let answer = Mutex<Result<[SourcedResponder], UplinkFailure>>(.success([Self.bob]))
        let store = makeStore(paths: ResponderPaths(backend: "http://127.0.0.1:8080"),
                              sources: ["backend": RespondersClient(kind: "backend", endpoint: "b", fetch: { answer.withLock { $0 } })])
        await appear(store)
        await store.receive(.polled(kind: "backend", .success([Self.bob]))) {
            $0.polled = ["backend"]
            $0.responders = [Responder(source: .backend(id: "r-1"), name: "Bob", kind: "contact", channels: ["app", "sms"],
                                       told: Self.everything)]
        }
        await store.receive(.delegate(.respondersUpdated))
        let failure = UplinkFailure(.transient, "GET /v1/responders: 503")
        answer.withLock { $0 = .failure(failure) }
        store.send(.refresh) { $0.refreshing = ["backend"] }
        await store.receive(.polled(kind: "backend", .failure(failure))) {
            $0.sourceFailures = ["backend": "GET /v1/responders: 503"]
            $0.refreshing = []
        }
        await store.receive(.delegate(.refreshed))
        // A failed source is asked again after the interval (and fails again here).
        await testClock.advance(by: .seconds(600))
        await store.receive(.announceReach) {
            $0.announceDue = true
            $0.reachAnnounced = true
        }
        await store.receive(.pollDue)
        await store.receive(.polled(kind: "backend", .failure(failure)))
        XCTAssertEqual(store.state.responders.map(\.name), ["Bob"])
        XCTAssertEqual(store.state.reach.line, "A missed check-in is told to: Bob (contact through the backend: app, sms); "
                       + "whoever the backend tells (its list cannot be read now: GET /v1/responders: 503). A help alert is told "
                       + "to: Bob (contact through the backend: app, sms); whoever the backend tells (its list cannot be read now: "
                       + "GET /v1/responders: 503).")
        // It answers again, with nobody: the list empties.
        answer.withLock { $0 = .success([]) }
        store.send(.refresh) { $0.refreshing = ["backend"] }
        await store.receive(.polled(kind: "backend", .success([]))) {
            $0.sourceFailures = [:]
            $0.refreshing = []
            $0.responders = []
        }
        await store.receive(.delegate(.refreshed))
        await store.receive(.delegate(.respondersUpdated))
        await stop(store)
    }

    func testARefreshWithNoPolledSourceAnswersAtOnce() async {
        let store = makeStore()
        await appear(store)
        store.send(.refresh)
        await store.receive(.delegate(.refreshed))
        await stop(store)
    }

    func testWatchersAreNotReachableWithoutTheBrokerHelpAlertsOffAndUnlistedChecksAreSaid() async {
        let paths = ResponderPaths(mqttBroker: "mqtt://127.0.0.1:1883", unlistedHealthchecks: [.missedCheckIn, .helpAlert],
                                   helpAlerts: false)
        let store = makeStore(paths: paths)
        await appear(store)
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#, retained: true))) {
            $0.responders = [self.watcher("kitchen-1", "Anna")]
        }
        await store.receive(.delegate(.respondersUpdated))
        XCTAssertEqual(store.state.reach.line, "A missed check-in is told to: whoever the healthchecks check-in check notifies "
                       + "(not listed: no [healthchecks] api_key_file). A help alert reaches nobody: help alerts are off "
                       + "([alert] enabled = false). Not reachable now: Anna (the MQTT broker is not connected).")
        XCTAssertFalse(store.state.reach.nobodyForMissedCheckIns)
        store.send(.brokerConnection(true)) {
            $0.brokerConnected = true
            $0.awaitingReplay = ["kitchen-1"]
        }
        XCTAssertEqual(store.state.reach.told[.missedCheckIn], ["Anna (watcher device, over MQTT)"])
        XCTAssertEqual(store.state.reach.told[.helpAlert], nil)
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#, retained: true))) { $0.awaitingReplay = [] }
        await stop(store)
    }

    func testTheReachLineIsLoggedOnceAfterTheStartAsAWarningWhenNobodyIsTold() async {
        let store = makeStore()
        await appear(store)
        let before = store.state
        await testClock.advance(by: .seconds(30))
        await store.receive(.announceReach) {
            $0.announceDue = true
            $0.reachAnnounced = true
        }
        let entries = RespondersFeature.log(.announceReach, before: before, after: store.state)
        XCTAssertEqual(entries.map(\.level), [.warning])
        XCTAssertTrue(entries.first?.message.contains("NOBODY is told of a missed check-in") ?? false, "\(entries)")
        XCTAssertTrue(entries.first?.message.contains("No responder is listed") ?? false, "\(entries)")
        XCTAssertEqual(RespondersFeature.log(.announceReach, before: store.state, after: store.state), [])
        await stop(store)
    }

    func testTheReachLineWaitsForASlowSourceAndSaysItIsNotAskedYetMeanwhile() async {
        let gate = AsyncStream<Void>.makeStream()
        let bob = Self.bob
        let store = makeStore(paths: ResponderPaths(backend: "http://127.0.0.1:8080"), sources: ["backend": RespondersClient(
            kind: "backend", endpoint: "b", fetch: {
                for await _ in gate.stream { break }
                return .success([bob])
            })])
        await appear(store)
        XCTAssertEqual(store.state.reach.line, "A missed check-in is told to: whoever the backend tells (not asked yet). "
                       + "A help alert is told to: whoever the backend tells (not asked yet).")
        await testClock.advance(by: .seconds(30))
        await store.receive(.announceReach) { $0.announceDue = true }
        XCTAssertFalse(store.state.reachAnnounced, "not before the backend answered")
        gate.continuation.yield()
        await store.receive(.polled(kind: "backend", .success([Self.bob]))) {
            $0.polled = ["backend"]
            $0.responders = [Responder(source: .backend(id: "r-1"), name: "Bob", kind: "contact", channels: ["app", "sms"],
                                       told: Self.everything)]
            $0.reachAnnounced = true
        }
        await store.receive(.delegate(.respondersUpdated))
        await stop(store)
    }
}
