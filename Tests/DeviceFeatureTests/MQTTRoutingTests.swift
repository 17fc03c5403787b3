import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import DeviceConfig
import DeviceFeature
import LEDLanguage
import MQTTClient
import MQTTFeature
import TestSupport
import XCTest

/// The device and its broker: what happens on the device becomes events, the broker's copy of
/// the state follows the device's within the same action, commands become the device's own
/// actions (a check-in from MQTT recorded as such), and an absent broker is a condition, a fault
/// only where nothing else reaches anyone.
final class MQTTRoutingTests: DeviceTestCase {
    var broker: FakeMQTTClient!
    var events: FakeDeviceEventQueue!

    /// A device with `[mqtt]` on the fake broker; `loaded`: as if started, settings and history
    /// (none) loaded, so check-ins move the phase.
    func makeMQTTStore(remoteCheckIn: Bool = false, uplink: Bool = false, loaded: Bool = false, mains: Bool = false,
                       phase: Phase = .neverCheckedIn) -> TestStore<DeviceFeature> {
        broker = FakeMQTTClient()
        events = FakeDeviceEventQueue()
        var configuration = DeviceConfiguration(storePath: "/tmp/x.sqlite", controlSocket: "/tmp/x.sock")
        configuration.alert.enabled = false
        configuration.mqtt = MQTTConfiguration(host: "broker.test", remoteCheckIn: remoteCheckIn)
        if uplink { configuration.healthchecks = HealthchecksConfiguration(checkInURL: "https://hc-ping.com/x") }
        if mains { configuration.power.mainsLine = .name("GPIO16") }
        var dependencies = makeDependencies()
        var client = broker.client
        client.deviceID = "hall"
        dependencies.mqtt = client
        dependencies.store.deviceEvents = events.store
        dependencies.store.deviceEventQueue = events.queue
        var endpoints = DeviceFeature.Endpoints()
        endpoints.mqttBroker = broker.broker
        endpoints.mqttDeviceID = "hall"
        var state = DeviceFeature.initialState(configuration, chipDescription: Self.chip, endpoints: endpoints)
        if loaded {
            state.isRunning = true
            state.checkIn.isRunning = true
            state.checkIn.hasLoadedSettings = true
            state.checkIn.hasLoadedHistory = true
            state.checkIn.phase = phase
            state.store.provenWritable = true
        }
        return TestStore(initialState: state, reducer: DeviceFeature(configuration: configuration, dependencies: dependencies))
    }

    let neverCheckedIn = MQTTDeviceState(indicator: .neverCheckedIn, phase: "never_checked_in")

    func testTheBrokersCopyOfTheStateFollowsTheDeviceWithinTheSameActionAndAStoredCheckInIsAnEvent() async {
        let store = makeMQTTStore(loaded: true)
        XCTAssertEqual(store.state.mqtt?.identity.baseTopic, "lifesignal/hall", "the default base topic carries the device id")
        let ping = PendingPing(id: "p1", responderID: "r", responderName: "Ada", createdAt: "2026-11-22T07:00:00Z")
        store.send(.checkIn(.pingsReceived([ping]))) {
            $0.checkIn.pendingPings = [ping]
            $0.mqtt?.device = MQTTDeviceState(indicator: .pingPending, phase: "never_checked_in", pingPending: true)
        }
        let record = CheckInRecord(id: id(7), at: Self.start, source: .button)
        store.send(.checkIn(.delegate(.checkInStored(record))))
        await store.receive(.store(.writeSucceeded))
        await store.receive(.mqtt(.eventOccurred(.checkIn(record))))
        let event = DeviceEvent(id: id(1), entity: "check_in", payload: MQTTDeviceEventPayloads.checkIn(record, id: id(1)),
                                at: Self.start.wall)
        await store.receive(.mqtt(.eventStored(.success(event))))
        XCTAssertEqual(events.pending, [event])
        await store.finish()
    }

    func testAskIfOKRaisesOneStoredPingThatAPressAnswersLikeAnyOther() async {
        let store = makeMQTTStore(loaded: true)
        let ping = await askIfOK(store)
        // Asked again while the first waits: one question at a time.
        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/ask_if_ok", payload: [])))) {
            $0.mqtt?.commandsAccepted = 2
        }
        await store.receive(.mqtt(.delegate(.askIfOK)))

        // The press answers it like a responder's ping; its answer stays on the device.
        store.send(.checkIn(.checkInRequested(.button))) {
            $0.checkIn.isCheckingIn = true
            $0.checkIn.pingResponsesBeingStored = [PingResponse(id: self.id(3), pingID: ping.id, checkInID: self.id(2), at: Self.start.wall)]
        }
        let record = CheckInRecord(id: id(2), at: Self.start, source: .button)
        let deadline = Self.start.wall + .seconds(86_400)
        await store.receive(.checkIn(.checkInResponse(.success(record)))) {
            $0.checkIn.isCheckingIn = false
            $0.checkIn.history = [record]
            $0.checkIn.feedback = .acknowledged
            $0.checkIn.phase = .checkedIn(Countdown(deadline: deadline, remaining: .seconds(86_400)))
            $0.checkIn.pendingPings = []
            $0.checkIn.pingResponsesBeingStored = []
            $0.mqtt?.device = MQTTDeviceState(indicator: .checkedIn, phase: "checked_in", lastCheckIn: Self.start.wall,
                                              lastCheckInSource: .button, nextDeadline: deadline)
        }
        await store.receive(.checkIn(.delegate(.checkInStored(record))))
        await store.receive(.store(.writeSucceeded))
        await store.receive(.mqtt(.eventOccurred(.checkIn(record))))
        await store.receive(.checkIn(.delegate(.pingsAnswered([PingResponse(id: id(3), pingID: ping.id, checkInID: id(2),
                                                                            at: Self.start.wall)]))))
        await store.receive(.mqtt(.eventOccurred(.pingsAnswered(count: 1, at: Self.start.wall))))
        await store.skipReceivedActions()  // the two events stored (their format: MQTTFeatureTests)
        XCTAssertEqual(events.pending.map(\.entity), ["check_in", "check_in"])
        XCTAssertTrue(events.pending.last?.payload.hasPrefix(#"{"event_type":"ping_answered","pings":1,"#) == true)
        store.send(.checkIn(.daemonStopping)) { $0.checkIn.isRunning = false }
        await store.finish()
    }

    func testIdentifyAndAnAllowedRemoteCheckInBecomeTheDevicesOwnActions() async {
        let store = makeMQTTStore(remoteCheckIn: true, loaded: true)
        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/identify", payload: Array("PRESS".utf8))))) {
            $0.mqtt?.commandsAccepted = 1
            $0.mqtt?.device = self.neverCheckedIn
        }
        await store.receive(.mqtt(.delegate(.identify)))
        await store.receive(.checkIn(.identifyRequested)) { $0.checkIn.feedback = .identify }
        XCTAssertEqual(store.state.indicator, .identify)
        XCTAssertEqual(store.state.mqtt?.device?.indicator, .neverCheckedIn, "identify is a moment, not the device's state")

        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/check_in", payload: Array("PRESS".utf8))))) {
            $0.mqtt?.commandsAccepted = 2
            $0.mqtt?.lastRemoteCheckIn = Self.start.uptime
        }
        await store.receive(.mqtt(.delegate(.checkIn)))
        await store.receive(.checkIn(.checkInRequested(.mqtt))) { $0.checkIn.isCheckingIn = true }
        let record = CheckInRecord(id: id(1), at: Self.start, source: .mqtt)
        let deadline = Self.start.wall + .seconds(86_400)
        await store.receive(.checkIn(.checkInResponse(.success(record)))) {
            $0.checkIn.isCheckingIn = false
            $0.checkIn.history = [record]
            $0.checkIn.feedback = .acknowledged
            $0.checkIn.phase = .checkedIn(Countdown(deadline: deadline, remaining: .seconds(86_400)))
            $0.mqtt?.device = MQTTDeviceState(indicator: .checkedIn, phase: "checked_in", lastCheckIn: Self.start.wall,
                                              lastCheckInSource: .mqtt, nextDeadline: deadline)
        }
        XCTAssertEqual(checkIns.records, [record], "recorded as MQTT, never as a press")
        await store.receive(.checkIn(.delegate(.checkInStored(record))))
        await store.receive(.store(.writeSucceeded))
        await store.receive(.mqtt(.eventOccurred(.checkIn(record))))
        await store.skipReceivedActions()
        store.send(.checkIn(.daemonStopping)) { $0.checkIn.isRunning = false }
        await store.finish()
    }

    func testAwayFromMQTTIsStoredAsMQTTsAndTheBrokersStateSaysAwayUntilAwayEndEndsIt() async {
        let store = makeMQTTStore(loaded: true)
        store.send(.mqtt(.delegate(.away(.seconds(86_400))))) { $0.mqtt?.device = self.neverCheckedIn }
        await store.receive(.checkIn(.away(.requested(.lasting(.seconds(86_400)), .mqtt)))) {
            $0.checkIn.settingsVersion = 1
            $0.checkIn.away.isSaving = true
        }
        let period = AwayPeriod(id: id(1), start: Self.start, duration: .seconds(86_400), source: .mqtt)
        await store.receive(.checkIn(.away(.startResponse(.success(period))))) {
            $0.checkIn.away.isSaving = false
            $0.checkIn.away.latest = period
            $0.checkIn.phase = .away(until: period.until)
            $0.mqtt?.device = MQTTDeviceState(indicator: .away, phase: "away", awayUntil: period.until)
        }
        XCTAssertEqual(checkIns.awayPeriods, [period], "stored, with MQTT as its source")
        await store.skipReceivedActions()

        store.send(.mqtt(.delegate(.awayEnd)))
        await store.receive(.checkIn(.away(.endRequested(.mqtt)))) {
            $0.checkIn.settingsVersion = 2
            $0.checkIn.away.isSaving = true
        }
        var ended = period
        ended.ended = AwayPeriod.Ending(at: Self.start, reason: .mqtt)
        let deadline = Self.start.wall + .seconds(86_400)
        await store.receive(.checkIn(.away(.endResponse(.success(ended))))) {
            $0.checkIn.away.isSaving = false
            $0.checkIn.away.latest = ended
            $0.checkIn.phase = .checkedIn(Countdown(deadline: deadline, remaining: .seconds(86_400)))
            $0.mqtt?.device = MQTTDeviceState(indicator: .checkedIn, phase: "checked_in", nextDeadline: deadline)
        }
        XCTAssertEqual(checkIns.awayPeriods, [ended], "ended by MQTT, stored so")
        await store.skipReceivedActions()
        store.send(.checkIn(.daemonStopping)) { $0.checkIn.isRunning = false }
        await store.finish()
    }

    func testTheMainsGoingIsAnMQTTEventAndOnBatteryShowsInTheBrokersStateAsOnTheLEDs() async {
        let deadline = Self.start.wall + .seconds(3600)
        let store = makeMQTTStore(loaded: true, mains: true,
                                  phase: .checkedIn(Countdown(deadline: deadline, remaining: .seconds(3600))))
        let checkedIn = MQTTDeviceState(indicator: .checkedIn, phase: "checked_in", nextDeadline: deadline)
        store.send(.gpio(.delegate(.input(.mains, active: false)))) { $0.mqtt?.device = checkedIn }
        let event = PowerEvent(id: id(1), at: Self.start, kind: .onBattery, detail: "the mains power was off when the device started")
        await store.receive(.power(.mainsChanged(present: false))) {
            $0.power.mainsPresent = false
            $0.power.onBatterySince = Self.start.wall
            $0.power.unsaved = [event]
            $0.power.isStoring = true
            $0.mqtt?.device = MQTTDeviceState(indicator: .onBattery, phase: "checked_in", nextDeadline: deadline, onBattery: true)
        }
        XCTAssertEqual(store.state.mqtt?.device?.indicator, store.state.indicator, "the broker's state says what the LEDs say")
        await store.receive(.power(.eventStored(.success(event)))) {
            $0.power.isStoring = false
            $0.power.unsaved = []
            $0.power.recent = [event]
        }
        await store.receive(.power(.delegate(.eventStored(event))))
        await store.receive(.mqtt(.eventOccurred(.power(event))))
        await store.skipReceivedActions()
        XCTAssertEqual(events.pending.map(\.entity), ["power"], "stored for the broker on the power event entity")
        XCTAssertTrue(events.pending.first?.payload.hasPrefix(#"{"event_type":"on_battery","detail":"running on battery"#) == true,
                      events.pending.first?.payload ?? "")
        await store.finish()
    }

    func testTheBrokerAwayIsAConditionAndAFaultOnlyWhereNothingElseReachesAnyone() {
        let failure = MQTTFailure(.refused, "mqtt://broker.test:1883 refused the connection: not authorised")
        for uplink in [true, false] {
            var state = makeMQTTStore(uplink: uplink).state
            XCTAssertEqual(state.mqtt?.isOnlyWayToReachAnyone, !uplink)
            state.mqtt?.connection = .waitingToRetry
            state.mqtt?.consecutiveFailures = 1
            state.mqtt?.lastFailure = failure
            state.mqtt?.unavailableSince = Self.start.wall
            let condition = state.conditions.first { $0.kind == .mqttUnavailable }
            XCTAssertEqual(condition?.message, "MQTT broker mqtt://broker.test:1883 unavailable: \(failure.message)")
            XCTAssertEqual(condition?.isFault, false, "not before the grace")
            XCTAssertTrue(condition?.advice.contains("password_file") == true, condition?.advice ?? "")
            XCTAssertFalse(state.hasFault)

            state.mqtt?.outageIsFault = !uplink  // as the grace ends (the feature sets it only where MQTT is the only way)
            XCTAssertEqual(state.hasFault, !uplink)
            XCTAssertEqual(state.indicator == .fault, !uplink)
            state.mqtt?.connection = .connected
            state.mqtt?.consecutiveFailures = 0
            XCTAssertFalse(state.conditions.contains { $0.kind == .mqttUnavailable }, "connected: no condition")
            XCTAssertFalse(state.hasFault)
        }
    }
}

/// The check-in event's JSON, as MQTTFeature writes it (its own tests pin the format).
enum MQTTDeviceEventPayloads {
    static func checkIn(_ record: CheckInRecord, id: CheckInID) -> String {
        #"{"event_type":"check_in","check_in_id":"\#(record.id)","source":"\#(record.source.rawValue)","at":"\#(record.at.wall.iso8601)","id":"\#(id)"}"#
    }
}

extension MQTTRoutingTests {
    /// `ask_if_ok` on a device that has just started: one local ping, stored, and the LEDs ask.
    func askIfOK(_ store: TestStore<DeviceFeature>) async -> PendingPing {
        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/ask_if_ok", payload: Array("PRESS".utf8))))) {
            $0.mqtt?.commandsAccepted = 1
            $0.mqtt?.device = self.neverCheckedIn
        }
        await store.receive(.mqtt(.delegate(.askIfOK)))
        let ping = PendingPing(id: "local-" + id(1).description, responderID: "home-assistant", responderName: "Home Assistant",
                               createdAt: "2026-11-22T08:00:00.000Z")
        await store.receive(.localPingStored(ping, .success([ping])))
        await store.receive(.checkIn(.pingsReceived([ping]))) {
            $0.checkIn.pendingPings = [ping]
            $0.mqtt?.device?.pingPending = true
            $0.mqtt?.device?.indicator = .pingPending
        }
        return ping
    }

    /// A watcher's `clear_ping` withdraws the ping its `ask_if_ok` raised: the LEDs stop asking
    /// and the store forgets it, so a restart does not ask again; `on_it` names who is coming
    /// in the state the broker holds, until the next check-in.
    func testAWatchersClearPingWithdrawsItsPingAndOnItIsInTheStateUntilACheckIn() async {
        let store = makeMQTTStore(loaded: true)
        let ping = await askIfOK(store)
        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/clear_ping", payload: [])))) {
            $0.mqtt?.commandsAccepted = 2
        }
        await store.receive(.mqtt(.delegate(.clearPing)))
        await store.receive(.checkIn(.pingsWithdrawn([ping.id]))) {
            $0.checkIn.pendingPings = []
            $0.mqtt?.device?.pingPending = false
            $0.mqtt?.device?.indicator = .neverCheckedIn
        }
        await store.receive(.pingsWithdrawn(nil))
        XCTAssertEqual(checkIns.contents.withLock { $0.pings }, [], "a restart does not ask again")

        store.send(.mqtt(.message(MQTTInboundMessage(topic: "lifesignal/hall/cmd/on_it", payload: Array("Anna".utf8))))) {
            $0.mqtt?.commandsAccepted = 3
        }
        await store.receive(.mqtt(.delegate(.onIt("Anna")))) {
            $0.helpComing = HelpComing(name: "Anna", at: Self.start.wall)
            $0.mqtt?.device?.onIt = "Anna"
        }
        await store.finish()
    }
}

