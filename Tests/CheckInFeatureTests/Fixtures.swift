import CheckInFeature
import CheckInModels
import CheckInStoreClient
import Clocks
import TestSupport
import ConcurrencyExtras
import DeviceClock
import Synchronization
import XCTest

/// Shared set-up: a test clock that drives both "now" and sleeping, deterministic ids, a fake store.
@MainActor
class FeatureTestCase: XCTestCase {
    // Effects and the test clock must interleave deterministically: run every test on one serial
    // executor (an unserialised test clock fails one run in twenty; see the project's test notes).
    override func invokeTest() {
        withMainSerialExecutor { super.invokeTest() }
    }

    static let bootA = "boot-a"
    static let start = DeviceInstant(
        wall: WallTime(iso8601: "2026-11-22T08:00:00Z")!, uptime: .seconds(1000),
        bootID: bootA, wallClockSynchronized: true)

    var clock: TestClock<Duration>!
    /// Moves the wall clock (a step, a set, NTP) and its synchronisation flag, leaving monotonic time alone.
    let wallClock = WallClockControl()
    var fake: FakeCheckInStore!
    final class Counter: Sendable { let value = Mutex<UInt64>(0) }
    let idCounter = Counter()

    static let hour = Duration.seconds(3600)

    func makeStore(
        records: [CheckInRecord] = [],
        stored: StoredSettings? = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil),
        configured: CheckInSettings? = nil,
        policy: SettingsPolicy = .standard,
        bootingAt boot: DeviceInstant = FeatureTestCase.start,
        alertStore: AlertStoreClient = .failing,
        timeZone: TimeZoneClient = .failing,
        awayPeriods: [AwayPeriod] = [],
        adjust: (inout CheckInFeature.State) -> Void = { _ in }
    ) -> TestStore<CheckInFeature> {
        clock = TestClock()
        fake = FakeCheckInStore(records: records, settings: stored)
        fake.contents.withLock { $0.awayPeriods = awayPeriods }
        let monotonic = DeviceClock.driven(by: clock, startingAt: boot)
        let feature = CheckInFeature(
            store: fake.client,
            clock: DeviceClock(now: { [wallClock] in wallClock.adjust(monotonic.now()) }, sleep: monotonic.sleep),
            newCheckInID: { [idCounter] in
                idCounter.value.withLock { count in
                    count += 1
                    return CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | count)
                }
            },
            alertStore: alertStore,
            timeZone: timeZone
        )
        var initialState = CheckInFeature.State(configuredSettings: configured, policy: policy)
        adjust(&initialState)
        return TestStore(initialState: initialState, reducer: feature)
    }

    /// Everything about the wall clock that a test can change while monotonic time runs on.
    final class WallClockControl: Sendable {
        private let state = Mutex<(step: Duration, synchronized: Bool?)>((.zero, nil))

        /// Steps the wall clock by `step` (on top of earlier steps); `synchronized` sets the flag.
        func step(by step: Duration, synchronized: Bool? = nil) {
            state.withLock { state in
                state.step += step
                if let synchronized { state.synchronized = synchronized }
            }
        }

        func adjust(_ instant: DeviceInstant) -> DeviceInstant {
            var adjusted = instant
            state.withLock { state in
                adjusted.wall = adjusted.wall + state.step
                if let synchronized = state.synchronized { adjusted.wallClockSynchronized = synchronized }
            }
            return adjusted
        }
    }

    /// The id the n-th check-in of a test gets.
    func id(_ n: UInt64) -> CheckInID { CheckInID(high: 0x4000, low: 0x8000_0000_0000_0000 | n) }

    /// A record made `ago` before the test's start, on the same boot unless `bootID` says otherwise.
    static func record(ago: Duration, bootID: String = bootA, n: UInt64 = 900) -> CheckInRecord {
        var at = start
        at.wall = start.wall + (.zero - ago)
        at.uptime = start.uptime - ago
        at.bootID = bootID
        return CheckInRecord(id: CheckInID(high: 1, low: n), at: at, source: .button)
    }

    /// Steps the store through start-up and asserts the loaded state; returns with effects running.
    func start(
        _ store: TestStore<CheckInFeature>,
        records: [CheckInRecord] = [],
        stored: StoredSettings? = StoredSettings(settings: .default, version: 1, appliedFromConfig: nil),
        expectPhase phase: Phase
    ) async {
        store.send(.daemonStarted) { $0.isRunning = true }
        await store.receive(.loadCheckInSettings)
        await store.receive(.loadCheckInHistory) { $0.isLoadingHistory = true }
        await store.receive(.checkInSettingsResponse(.success(stored))) {
            $0.hasLoadedSettings = true
            $0.settingsVersion = stored?.version ?? 0
            $0.settings = stored?.settings ?? .default
            $0.away.latest = stored?.latestAway
        }
        await store.receive(.checkInHistoryResponse(.success(records))) {
            $0.isLoadingHistory = false
            $0.hasLoadedHistory = true
            $0.history = records
            $0.phase = phase
        }
    }

    func stop(_ store: TestStore<CheckInFeature>) async {
        store.send(.daemonStopping) { $0.isRunning = false }
        await store.finish()
    }

    func countdown(remaining: Duration, now: Duration = .zero) -> Countdown {
        Countdown(deadline: Self.start.wall + now + remaining, remaining: remaining)
    }
}
