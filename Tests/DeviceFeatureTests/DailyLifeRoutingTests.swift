import CheckInFeature
import CheckInModels
import CheckInStoreClient
import DeviceConfig
import DeviceFeature
import GPIOClient
import HealthchecksSyncFeature
import LEDLanguage
import PowerFeature
import SettingsSyncFeature
import TestSupport
import UplinkClient
import XCTest

/// What daily life means for the rest of the device: a power event goes to every target at once,
/// on battery shows only when nothing else needs doing, and away mode reaches the backend's
/// settings and pauses the device's own check.
@MainActor
final class DailyLifeRoutingTests: DeviceTestCase {
    func testOnBatteryNeverHidesWhatAsksSomethingOfThePersonNorAFault() {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.power.mainsLine = .name("GPIO16")
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        let countdown = Countdown(deadline: Self.start.wall, remaining: .seconds(3600))
        state.power.mainsPresent = false
        for (phase, shown) in [(Phase.checkedIn(countdown), Indicator.onBattery), (.away(until: Self.start.wall), .onBattery),
                               (.reminder(countdown), .reminder), (.lastChance(countdown), .lastChance), (.overdue(countdown), .overdue),
                               (.neverCheckedIn, .neverCheckedIn)] {
            state.checkIn.phase = phase
            XCTAssertEqual(state.indicator, shown, "\(phase.name) on battery")
        }
        state.checkIn.phase = .checkedIn(countdown)
        state.checkIn.pendingPings = [PendingPing(id: "p", responderID: "r", responderName: "Sam", createdAt: "2026-11-22T08:00:00Z")]
        XCTAssertEqual(state.indicator, .pingPending)
        state.checkIn.pendingPings = []
        state.gpio.connection = .waiting(GPIOError(operation: "open", target: "chip", reason: "gone"))
        state.gpio.shownFailure = GPIOError(operation: "open", target: "chip", reason: "gone")
        XCTAssertEqual(state.indicator, .fault)
        state.gpio.connection = .connected
        state.gpio.shownFailure = nil
        state.power.mainsPresent = true
        XCTAssertEqual(state.indicator, .checkedIn)
    }

    func testAPowerEventGoesToEveryTargetAtOnce() async {
        let healthchecks = HealthchecksClients(checkIns: .failing(endpoint: "check-in"), heartbeat: nil)
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.power.mainsLine = .name("GPIO16")
        configuration.uplink = UplinkConfiguration(url: "https://api.example.org", tokenFile: "/t")
        configuration.healthchecks = HealthchecksConfiguration(checkInURL: "https://hc-ping.com/5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10")
        var dependencies = makeDependencies()
        dependencies.backend = .failing()
        dependencies.healthchecks = healthchecks
        let store = TestStore(initialState: DeviceFeature.initialState(configuration, chipDescription: Self.chip),
                              reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
        store.send(.gpio(.delegate(.input(.mains, active: false))))
        let event = PowerEvent(id: id(1), at: Self.start, kind: .onBattery, detail: "the mains power was off when the device started")
        await store.receive(.power(.mainsChanged(present: false))) {
            $0.power.mainsPresent = false
            $0.power.onBatterySince = Self.start.wall
            $0.power.unsaved = [event]
            $0.power.isStoring = true
        }
        await store.receive(.power(.eventStored(.success(event)))) {
            $0.power.isStoring = false
            $0.power.unsaved = []
            $0.power.recent = [event]
        }
        await store.receive(.power(.delegate(.eventStored(event))))
        // Neither uploader runs in this test (not started): each is told, and would send it now.
        await store.receive(.eventUpload(.itemStored))
        await store.receive(.healthchecksEventUpload(.itemStored))
        XCTAssertEqual(powerEvents.events, [event])
        await store.finish()
    }

    func testAwayReachesTheBackendsSettingsAndPausesTheDevicesOwnCheck() async {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.uplink = UplinkConfiguration(url: "https://api.example.org", tokenFile: "/t")
        configuration.healthchecks = HealthchecksConfiguration(checkInURL: nil, management: HealthchecksManagement(apiKeyFile: "/k"))
        configuration.grace = .zero
        var dependencies = makeDependencies()
        dependencies.backend = .failing()
        dependencies.healthchecks = HealthchecksClients(checkIns: .failing(endpoint: "check-in"), heartbeat: nil,
                                                        management: .failing())
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        state.checkIn.isRunning = true
        state.checkIn.hasLoadedSettings = true
        state.checkIn.hasLoadedHistory = true
        state.checkIn.settingsVersion = 1
        state.store.provenWritable = true
        let store = TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))

        store.send(.checkIn(.away(.requested(.lasting(.seconds(86_400)), .cli)))) {
            $0.checkIn.settingsVersion = 2
            $0.checkIn.away.isSaving = true
        }
        let period = AwayPeriod(id: id(1), start: Self.start, duration: .seconds(86_400), source: .cli)
        await store.receive(.checkIn(.away(.startResponse(.success(period))))) {
            $0.checkIn.away.isSaving = false
            $0.checkIn.away.latest = period
            $0.checkIn.phase = .away(until: period.until)
        }
        await store.receive(.checkIn(.delegate(.awayStarted(period))))
        await store.receive(.store(.writeSucceeded))
        // Not running: the sync is asked for and drops it; the plan reaches the check's sync.
        await store.receive(.settingsSync(.syncRequested(local: StoredSettings(settings: .default, version: 2, appliedFromConfig: nil,
                                                                              away: period.plan),
                                                         policy: .standard)))
        let plan = CheckInCheckPlan(settings: .default, paused: true)
        await store.receive(.healthchecksSync(.planChanged(plan))) {
            $0.healthchecksSync?.wanted = CheckTimings.specs(plan: plan, heartbeat: .seconds(900), slugPrefix: "lifesignal")
        }
        XCTAssertEqual(store.state.healthchecksSync?.wanted.first?.paused, true, "the check-in check is paused while away")
        XCTAssertEqual(store.state.healthchecksSync?.wanted.dropFirst().map(\.paused), [false, false], "the others run on")
        XCTAssertEqual(checkIns.awayPeriods, [period])
        store.send(.checkIn(.daemonStopping)) { $0.checkIn.isRunning = false }
        await store.finish()
    }

    func testACheckInPingWhileAwayIsFollowedByPausingTheCheckAgain() async {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.healthchecks = HealthchecksConfiguration(checkInURL: nil, management: HealthchecksManagement(apiKeyFile: "/k"))
        configuration.awayPressEnds = false
        var dependencies = makeDependencies()
        dependencies.healthchecks = HealthchecksClients(checkIns: .failing(endpoint: "check-in"), heartbeat: nil,
                                                        management: .failing())
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        let store = TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
        // Not away: a ping is just a ping.
        store.send(.healthchecksUpload(.delegate(.acknowledged([id(1)]))))
        await store.finish()

        state.checkIn.away.latest = AwayPeriod(id: id(2), start: Self.start, duration: .seconds(86_400), source: .cli)
        let away = TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
        away.send(.healthchecksUpload(.delegate(.acknowledged([id(1)]))))
        // The sync is not running in this test: the request is heard and dropped.
        await away.receive(.healthchecksSync(.resyncRequested))
        await away.finish()
    }
}
