import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import DependentsClient
import DependentsFeature
import DeviceConfig
import DeviceFeature
import GPIOClient
import StoreHealthFeature
import LEDLanguage
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// A watcher in the device: its button is the glance's, its LEDs show the loudest dependent (a
/// fault first), a device that is both shows whichever asks more; and on a person's device, what
/// a watcher asks of it: "I'm on it" until the next check-in, and a withdrawn ping.
final class DependentsRoutingTests: DeviceTestCase {
    final class Sent: Sendable { let requests = Mutex<[String]>([]) }
    let sent = Sent()
    static let gran = DependentEntry(name: "Gran", source: .backend(id: "dev-gran"), heartbeat: .seconds(600), fromConfig: true)

    func makeWatcher(role: DeviceRole = .watcher) -> TestStore<DeviceFeature> {
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.alert.enabled = false
        configuration.device = DeviceRoleConfiguration(role: role, name: "Anna")
        configuration.dependents = DependentsConfiguration(entries: [Self.gran])
        var dependencies = makeDependencies()
        var backend = DependentsClient.failing(kind: "backend")
        backend.onIt = { [sent] id, watcher in
            sent.requests.withLock { $0.append("on-it \(id) \(watcher)") }
            return .success(())
        }
        dependencies.dependentSources = ["backend": backend]
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        state.isRunning = true
        state.dependents?.isLoaded = true
        state.dependents?.dependents = [Dependent(entry: Self.gran)]
        return TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
    }

    func testAWatchersLEDsShowTheLoudestDependentAndAFaultBeforeAnything() {
        let store = makeWatcher()
        XCTAssertEqual(store.state.indicator, .dependentsUnknown, "not heard of yet: never a calm light")
        var state = store.state
        let expected: [(DependentStatus, Indicator)] = [
            (.checkedIn, .dependentsOK), (.away, .dependentsOK), (.reminder, .dependentReminder), (.silent, .dependentSilent),
            (.overdue, .dependentOverdue), (.helpAlert, .dependentHelpAlert),
        ]
        for (status, indicator) in expected {
            state.dependents?.dependents[0].status = status
            XCTAssertEqual(state.indicator, indicator, "\(status)")
        }
        state.dependents?.confirmingPingAll = true
        XCTAssertEqual(state.indicator, .pingConfirm)
        state.store.problem = StoreProblem(StoreFailure(.full, "the disk is full"), since: Self.start.wall)
        XCTAssertEqual(state.indicator, .fault, "the device's own fault is louder than anyone's status")
        state.dependents?.dependents = []
        state.dependents?.confirmingPingAll = false
        state.store.problem = nil
        XCTAssertEqual(state.indicator, .neverCheckedIn, "a watcher looking after nobody yet: set it up")
    }

    func testAWatchersPressIsTheGlancesAndSaysImOnItToWhoeverIsOverdue() async {
        let store = makeWatcher()
        var overdue = Dependent(entry: Self.gran)
        overdue.status = .overdue
        overdue.report = DependentReport(status: .overdue)
        store.send(.dependents(.polled(kind: "backend", .success(["dev-gran": SourcedDependent(name: "Gran",
                                                                                               report: DependentReport(status: .overdue))])))) {
            $0.dependents?.lastPolled["backend"] = Self.start.uptime
            $0.dependents?.dependents[0].report = DependentReport(status: .overdue)
            $0.dependents?.dependents[0].heardAt = Self.start.wall
            $0.dependents?.dependents[0].status = .overdue
        }
        XCTAssertEqual(store.state.indicator, .dependentOverdue)
        store.send(.gpio(.buttonChanged(ButtonEvent(.pressed, at: .seconds(1)))))
        store.send(.gpio(.buttonChanged(ButtonEvent(.released, at: .seconds(2)))))
        await store.receive(.dependents(.buttonPressed))
        await store.receive(.dependents(.onItSent(name: "Gran", failure: nil))) {
            $0.dependents?.dependents[0].onItSent = true
            $0.dependents?.lastOutcome = "told Gran you are on it"
        }
        XCTAssertEqual(sent.requests.withLock { $0 }, ["on-it dev-gran Anna"])
        XCTAssertFalse(store.state.checkIn.isCheckingIn, "a watcher's press is no check-in")
        await store.finish()
    }

    func testOnADeviceThatIsBothThePersonsOwnIndicatorWinsUnlessItIsCalm() {
        var state = makeWatcher(role: .both).state
        state.checkIn.hasLoadedHistory = true
        state.checkIn.phase = .reminder(Countdown(deadline: Self.start.wall + .seconds(600), remaining: .seconds(600)))
        state.dependents?.dependents[0].status = .overdue
        XCTAssertEqual(state.indicator, .reminder, "the person's own reminder first")
        state.checkIn.phase = .checkedIn(Countdown(deadline: Self.start.wall + .seconds(86_400), remaining: .seconds(86_400)))
        XCTAssertEqual(state.indicator, .dependentOverdue, "checked in: the glance shows")
        state.dependents?.dependents[0].status = .checkedIn
        XCTAssertEqual(state.indicator, .checkedIn, "all well on both: the person's calm")
    }

    func testOnAPersonsDeviceImOnItShowsUntilTheNextCheckIn() async {
        var state = makeStore().state
        state.checkIn.hasLoadedHistory = true
        state.checkIn.phase = .overdue(Countdown(deadline: Self.start.wall + .seconds(-60), remaining: .seconds(-60)))
        XCTAssertEqual(state.indicator, .overdue)
        state.helpComing = HelpComing(name: "Anna", at: Self.start.wall)
        XCTAssertEqual(state.indicator, .helpComing)
        state.checkIn.phase = .lastChance(Countdown(deadline: Self.start.wall, remaining: .zero))
        XCTAssertEqual(state.indicator, .helpComing)
        state.checkIn.phase = .checkedIn(Countdown(deadline: Self.start.wall + .seconds(86_400), remaining: .seconds(86_400)))
        XCTAssertEqual(state.indicator, .checkedIn, "only what it answers gives way")

        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.alert.enabled = false
        var initial = DeviceFeature.initialState(configuration, chipDescription: Self.chip)
        initial.helpComing = HelpComing(name: "Anna", at: Self.start.wall)
        let store = TestStore(initialState: initial, reducer: DeviceFeature(configuration: configuration, dependencies: makeDependencies()))
        let record = CheckInRecord(id: id(1), at: Self.start, source: .button)
        store.send(.checkIn(.delegate(.checkInStored(record)))) { $0.helpComing = nil }
        await store.receive(.store(.writeSucceeded)) { $0.store.provenWritable = true }
        await store.receive(.store(.delegate(.writable)))
        await store.receive(.checkIn(.storeWritable))
        await store.finish()
    }

    func testADependentWithALightOfTheirOwnHasItFollowTheirStatus() {
        var state = makeWatcher().state
        XCTAssertEqual(state.dependentLights, [:], "no light configured")
        state.dependents?.dependents[0].entry.led = "gran"
        let expected: [(DependentStatus, String)] = [
            (.checkedIn, "on"), (.overdue, "200ms on, 200ms off, 200ms on, 400ms off"), (.helpAlert, "250ms on, 250ms off"),
            (.silent, "100ms on, 900ms off"), (.unknown, "100ms on, 2900ms off"),
        ]
        for (status, waveform) in expected {
            state.dependents?.dependents[0].status = status
            XCTAssertEqual(state.dependentLights["gran"]?.description, waveform, "\(status)")
        }
        XCTAssertEqual(makeStore().state.dependentLights, [:], "a person's device has none")
    }
}

