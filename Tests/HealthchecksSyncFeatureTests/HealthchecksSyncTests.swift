import Backoff
import CheckInModels
import Clocks
import ComposableCore
import ConcurrencyExtras
import DeviceClock
import HealthchecksSyncFeature
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// The device's own checks follow its settings: created or found at the start, updated after
/// every change, retried after transient failures, and a refusal says why and waits.
@MainActor
final class HealthchecksSyncTests: XCTestCase {
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    nonisolated static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000), bootID: "boot-a", wallClockSynchronized: true)
    static let site = "https://healthchecks.io"
    static let daily = CheckInSettings.default
    static let twiceDaily = CheckInSettings(interval: .seconds(12 * 3600), reminder: .seconds(3600))
    let unreachable = UplinkFailure(.transient, "GET https://healthchecks.io/api/v3/checks/ failed: Could not resolve host")
    let readOnly = UplinkFailure(.permanent, "POST https://healthchecks.io/api/v3/checks/ answered HTTP 401: wrong api key", httpStatus: 401)

    var clock: TestClock<Duration>!
    let server = FakeManagementAPI()

    func makeStore() -> TestStore<HealthchecksSyncFeature> {
        clock = TestClock()
        let feature = HealthchecksSyncFeature(
            management: HealthchecksManagementClient(endpoint: Self.site, sync: server.sync),
            clock: .driven(by: clock, startingAt: Self.start), backoff: .network(cap: .seconds(60)),
            random: { $0.upperBound }, heartbeat: .seconds(900), slugPrefix: "lifesignal")
        return TestStore(initialState: HealthchecksSyncFeature.State(endpoint: Self.site), reducer: feature)
    }

    static func specs(_ settings: CheckInSettings) -> [CheckSpec] {
        CheckTimings.specs(settings: settings, heartbeat: .seconds(900), slugPrefix: "lifesignal")
    }

    nonisolated func wall(_ offset: Duration) -> WallTime { Self.start.wall + offset }

    func testTheCheckInCheckGoesDownExactlyWhenTheDeviceShowsOverdueAndLateWhenItShowsTheReminder() {
        let timings = CheckTimings.checkIn(Self.daily)
        XCTAssertEqual(timings.timeout + timings.grace, Self.daily.interval, "down at the deadline")
        XCTAssertEqual(timings.grace, Self.daily.reminder, "late when the amber reminder starts")
        XCTAssertEqual(CheckTimings.heartbeat(period: .seconds(900)).timeout, .seconds(900))
        XCTAssertEqual(CheckTimings.heartbeat(period: .seconds(900)).grace, .seconds(1800), "two missed beats before anyone is paged")
        // Second-scale developer settings meet healthchecks' one-minute minimum.
        let short = CheckTimings.checkIn(CheckInSettings(interval: .seconds(90), reminder: .seconds(10)))
        XCTAssertEqual(short.timeout, .seconds(80))
        XCTAssertEqual(short.grace, .seconds(60))
        let specs = Self.specs(Self.daily)
        XCTAssertEqual(specs.map(\.slug), ["lifesignal-check-in", "lifesignal-heartbeat", "lifesignal-alert"])
        XCTAssertEqual(specs.map(\.name), ["LifeSignal check-in", "LifeSignal device online", "LifeSignal HELP ALERT"])
        XCTAssertEqual(CheckTimings.specs(settings: Self.daily, heartbeat: .seconds(900), slugPrefix: "mum").map(\.name).first,
                       "LifeSignal check-in (mum)")
    }

    func testTheChecksAreSetUpAtTheStartAndUpdatedAfterEverySettingsChangeButNotForTheSameSettings() async {
        let store = makeStore()
        store.send(.settingsChanged(Self.daily)) { $0.wanted = Self.specs(Self.daily) }
        store.send(.start) {
            $0.isRunning = true
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.daily)
        }
        let created = server.checks(for: Self.specs(Self.daily), change: .created)
        await store.receive(.syncResponse(.success(created))) {
            $0.isSyncing = false
            $0.checks = created
            $0.synced = Self.specs(Self.daily)
            $0.status = .idle
            $0.lastSuccess = self.wall(.zero)
        }
        await store.receive(.delegate(.inStep(created)))
        XCTAssertTrue(store.state.isInStep)

        store.send(.settingsChanged(Self.daily))  // the same settings again (a reload): nothing to do
        await store.expectNoAction()

        await clock.advance(by: .seconds(5))
        store.send(.settingsChanged(Self.twiceDaily)) {
            $0.wanted = Self.specs(Self.twiceDaily)
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.twiceDaily)
        }
        XCTAssertFalse(store.state.isInStep)
        let updated = server.checks(for: Self.specs(Self.twiceDaily), change: .updated)
        await store.receive(.syncResponse(.success(updated))) {
            $0.isSyncing = false
            $0.checks = updated
            $0.synced = Self.specs(Self.twiceDaily)
            $0.status = .idle
            $0.lastSuccess = self.wall(.seconds(5))
        }
        await store.receive(.delegate(.inStep(updated)))
        XCTAssertEqual(server.requests, [Self.specs(Self.daily), Self.specs(Self.twiceDaily)])
        await stop(store)
    }

    func testASettingsChangeDuringASyncIsSyncedRightAfterIt() async {
        let store = makeStore()
        server.gate.shut()
        store.send(.settingsChanged(Self.daily)) { $0.wanted = Self.specs(Self.daily) }
        store.send(.start) {
            $0.isRunning = true
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.daily)
        }
        await store.expectNoAction()
        store.send(.settingsChanged(Self.twiceDaily)) {
            $0.wanted = Self.specs(Self.twiceDaily)
            $0.syncAgain = true
        }
        server.gate.open()
        let first = server.checks(for: Self.specs(Self.daily), change: .created)
        await store.receive(.syncResponse(.success(first))) {
            $0.isSyncing = false
            $0.checks = first
            $0.synced = Self.specs(Self.daily)
            $0.lastSuccess = self.wall(.zero)
            $0.syncAgain = false
            $0.isSyncing = true
            $0.syncingSpecs = Self.specs(Self.twiceDaily)
        }
        let second = server.checks(for: Self.specs(Self.twiceDaily), change: .updated)
        await store.receive(.syncResponse(.success(second))) {
            $0.isSyncing = false
            $0.checks = second
            $0.synced = Self.specs(Self.twiceDaily)
            $0.status = .idle
        }
        await store.receive(.delegate(.inStep(second)))
        XCTAssertTrue(store.state.isInStep)
        await stop(store)
    }

    func testTransientFailuresBackOffAndTheNetworkComingBackRetriesAtOnce() async {
        let store = makeStore()
        server.answer(.failure(unreachable), .failure(unreachable))
        store.send(.settingsChanged(Self.daily)) { $0.wanted = Self.specs(Self.daily) }
        store.send(.start) {
            $0.isRunning = true
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.daily)
        }
        await store.receive(.syncResponse(.failure(unreachable))) {
            $0.isSyncing = false
            $0.consecutiveFailures = 1
            $0.lastError = self.unreachable.message
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(2))
        }
        let waiting = store.state
        XCTAssertEqual(HealthchecksSyncFeature.log(.syncResponse(.failure(unreachable)), before: syncing(waiting), after: waiting).map(\.level),
                       [.warning])
        await clock.advance(by: .seconds(2))
        await store.receive(.retryDue) {
            $0.isSyncing = true
            $0.status = .syncing
            $0.nextRetry = nil
        }
        await store.receive(.syncResponse(.failure(unreachable))) {
            $0.isSyncing = false
            $0.consecutiveFailures = 2
            $0.status = .waitingToRetry
            $0.nextRetry = self.wall(.seconds(6))
        }
        await clock.advance(by: .seconds(1))
        store.send(.networkChanged) {
            $0.isSyncing = true
            $0.status = .syncing
            $0.nextRetry = nil
        }
        let checks = server.checks(for: Self.specs(Self.daily), change: .unchanged)
        await store.receive(.syncResponse(.success(checks))) {
            $0.isSyncing = false
            $0.checks = checks
            $0.synced = Self.specs(Self.daily)
            $0.status = .idle
            $0.consecutiveFailures = 0
            $0.lastError = nil
            $0.lastSuccess = self.wall(.seconds(3))
        }
        await store.receive(.delegate(.inStep(checks)))
        await clock.advance(by: .seconds(60))
        await store.expectNoAction()
        XCTAssertEqual(server.requests.count, 3, "the cancelled backoff sent nothing more")
        await stop(store)
    }

    func testARefusedKeyIsAnErrorAndWaitsForNewSettingsNotForTheNetwork() async {
        let store = makeStore()
        server.answer(.failure(readOnly))
        store.send(.settingsChanged(Self.daily)) { $0.wanted = Self.specs(Self.daily) }
        store.send(.start) {
            $0.isRunning = true
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.daily)
        }
        let syncing = store.state
        await store.receive(.syncResponse(.failure(readOnly))) {
            $0.isSyncing = false
            $0.consecutiveFailures = 1
            $0.lastError = self.readOnly.message
            $0.status = .refused
        }
        let log = HealthchecksSyncFeature.log(.syncResponse(.failure(readOnly)), before: syncing, after: store.state)
        XCTAssertEqual(log.map(\.level), [.error])
        XCTAssertTrue(log.first?.message.contains("wrong api key") == true, "\(log)")
        store.send(.networkChanged)
        await clock.advance(by: .seconds(3600))
        await store.expectNoAction()
        XCTAssertEqual(server.requests.count, 1)

        store.send(.settingsChanged(Self.twiceDaily)) {
            $0.wanted = Self.specs(Self.twiceDaily)
            $0.isSyncing = true
            $0.status = .syncing
            $0.syncingSpecs = Self.specs(Self.twiceDaily)
        }
        let created = server.checks(for: Self.specs(Self.twiceDaily), change: .updated)
        await store.receive(.syncResponse(.success(created))) {
            $0.isSyncing = false
            $0.checks = created
            $0.synced = Self.specs(Self.twiceDaily)
            $0.status = .idle
            $0.consecutiveFailures = 0
            $0.lastError = nil
            $0.lastSuccess = self.wall(.seconds(3600))
        }
        await store.receive(.delegate(.inStep(created)))
        await stop(store)
    }

    func testNothingIsSyncedBeforeTheSettingsAreKnownOrAfterStop() async {
        let store = makeStore()
        store.send(.start) { $0.isRunning = true }
        await store.expectNoAction()
        await stop(store)
        store.send(.settingsChanged(Self.daily)) { $0.wanted = Self.specs(Self.daily) }
        await store.expectNoAction()
        XCTAssertEqual(server.requests, [])
    }

    private func syncing(_ state: HealthchecksSyncFeature.State) -> HealthchecksSyncFeature.State {
        var before = state
        before.isSyncing = true
        return before
    }

    func stop(_ store: TestStore<HealthchecksSyncFeature>) async {
        store.send(.stop) {
            $0.isRunning = false
            if $0.status != .refused { $0.status = .idle }
        }
        await store.finish()
    }
}

/// The management API as a script: each sync takes the next scripted answer (the checks as asked
/// when none is left); every request is kept.
final class FakeManagementAPI: Sendable {
    private let state = Mutex<(script: [Result<[ManagedCheck], UplinkFailure>], requests: [[CheckSpec]])>(([], []))
    let gate = Gate()

    func answer(_ results: Result<[ManagedCheck], UplinkFailure>...) { state.withLock { $0.script += results } }
    var requests: [[CheckSpec]] { state.withLock { $0.requests } }

    func checks(for specs: [CheckSpec], change: ManagedCheck.Change) -> [ManagedCheck] {
        specs.map { ManagedCheck(role: $0.role, slug: $0.slug, status: "new", timeout: $0.timeout, grace: $0.grace, change: change) }
    }

    var sync: @Sendable ([CheckSpec]) async -> Result<[ManagedCheck], UplinkFailure> {
        { [self] specs in
            let answer = state.withLock { state in
                state.requests.append(specs)
                return state.script.isEmpty ? nil : state.script.removeFirst()
            }
            await gate.pass()
            return answer ?? .success(checks(for: specs, change: specs == requests.dropLast().last ? .unchanged
                                                  : requests.count == 1 ? .created : .updated))
        }
    }
}
