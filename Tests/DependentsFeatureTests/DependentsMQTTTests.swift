import CheckInModels
import DependentsFeature
import MQTTClient
import TestSupport
import XCTest

/// Dependents watched over MQTT: their device's retained state and availability become a status,
/// silence after the heartbeat allowance, and pings and "I'm on it" as commands to their device.
final class DependentsMQTTTests: DependentsTestCase {
    func testTheLoadShowsConfiguredAndAddedDependentsAndTheStoredSortOption() async {
        let store = makeStore(configured: [Self.dad])
        await appear(store, stored: [Self.mum], sort: .name)
        XCTAssertEqual(store.state.sorted.map(\.entry.name), ["Dad", "Mum"])
        XCTAssertEqual(store.state.subscriptions, ["lifesignal/dad/availability", "lifesignal/dad/state",
                                                  "lifesignal/mum/availability", "lifesignal/mum/state"])
        XCTAssertEqual(store.state.loudest, .unknown)
        // A second onAppear (a restart of the feature within the run) loads nothing again.
        store.send(.onAppear)
        await stop(store)
    }

    func testEachPhaseOfTheirStateBecomesAStatusAndLastChanceIsStillAReminder() async {
        let cases: [(String, Bool, Bool, DependentStatus)] = [
            ("checked_in", false, false, .checkedIn), ("reminder", false, false, .reminder),
            ("last_chance", false, false, .reminder), ("overdue", true, false, .overdue),
            ("checked_in", false, true, .helpAlert), ("overdue", true, true, .helpAlert),
            ("away", false, false, .away), ("never_checked_in", false, false, .unknown), ("starting", false, false, .unknown),
        ]
        for (phase, overdue, help, expected) in cases {
            let store = makeStore()
            await appear(store, stored: [Self.mum])
            store.send(.peerMessage(state("lifesignal/mum", phase: phase, overdue: overdue, helpAlert: help))) {
                $0.dependents[0].report = self.report(expected)
                $0.dependents[0].heardAt = Self.start.wall
                $0.dependents[0].status = expected
            }
            XCTAssertEqual(store.state.loudest, expected, phase)
            await stop(store)
        }
    }

    func testAStateThatCannotBeReadKeepsTheLastGoodWordAndSaysWhy() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        store.send(.peerMessage(state("lifesignal/mum", phase: "overdue", overdue: true))) {
            $0.dependents[0].report = self.report(.overdue)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .overdue
        }
        store.send(.peerMessage(MQTTInboundMessage(topic: "lifesignal/mum/state", payload: Array("{\"phase\":".utf8)))) {
            $0.dependents[0].problem = "its state is not what a LifeSignal device publishes: not valid JSON (The given data was not valid JSON: the text ends where a value should be at byte 10)"
        }
        store.send(.peerMessage(state("lifesignal/mum", phase: "dancing"))) {
            $0.dependents[0].problem = "its state has an unknown phase \"dancing\""
        }
        // Never a false "OK": still overdue.
        XCTAssertEqual(store.state.dependents[0].status, .overdue)
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in", deadline: "tomorrow"))) {
            $0.dependents[0].problem = "its state has a time that is not RFC 3339: \"tomorrow\""
        }
        // A topic of nobody the watcher knows changes nothing.
        store.send(.peerMessage(state("lifesignal/stranger", phase: "overdue", overdue: true)))
        await stop(store)
    }

    func testNothingHeardForTheHeartbeatAllowanceIsSilent() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        await testClock.advance(by: .seconds(179))
        await store.expectNoAction()
        await testClock.advance(by: .seconds(1))
        await store.receive(.silenceCheckDue) { $0.dependents[0].status = .silent }
        XCTAssertEqual(store.state.loudest, .silent)
        // Their state arrives: no longer silent.
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in"))) {
            $0.dependents[0].report = self.report(.checkedIn)
            $0.dependents[0].heardAt = Self.start.wall + .seconds(180)
            $0.dependents[0].status = .checkedIn
        }
        await stop(store)
    }

    func testOfflineTurnsSilentOnlyAfterTheAllowanceSoARestartOfTheirDeviceDoesNot() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        store.send(.peerMessage(availability("lifesignal/mum", "online"))) { $0.dependents[0].online = true }
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in"))) {
            $0.dependents[0].report = self.report(.checkedIn)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .checkedIn
        }
        // Their device restarts (an update): offline for 20 s, then online again.
        await testClock.advance(by: .seconds(10))
        store.send(.peerMessage(availability("lifesignal/mum", "offline"))) {
            $0.dependents[0].online = false
            $0.dependents[0].offlineSince = Self.start.uptime + .seconds(10)
        }
        await testClock.advance(by: .seconds(20))
        store.send(.peerMessage(availability("lifesignal/mum", "online"))) {
            $0.dependents[0].online = true
            $0.dependents[0].offlineSince = nil
        }
        await testClock.advance(by: .seconds(300))
        await store.expectNoAction()
        XCTAssertEqual(store.state.dependents[0].status, .checkedIn)
        // Killed: the broker's last will says offline, and it stays so.
        store.send(.peerMessage(availability("lifesignal/mum", "offline"))) {
            $0.dependents[0].online = false
            $0.dependents[0].offlineSince = Self.start.uptime + .seconds(330)
        }
        await testClock.advance(by: .seconds(180))
        await store.receive(.silenceCheckDue) { $0.dependents[0].status = .silent }
        store.send(.peerMessage(availability("lifesignal/mum", "sleeping"))) {
            $0.dependents[0].problem = "their availability is neither online nor offline"
        }
        await stop(store)
    }

    func testAPingGoesToTheirAskIfOKAndTheirPressAnswersIt() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in"))) {
            $0.dependents[0].report = self.report(.checkedIn)
            $0.dependents[0].heardAt = Self.start.wall
            $0.dependents[0].status = .checkedIn
        }
        await testClock.advance(by: .seconds(60))
        store.send(.ping(name: "mum"))
        await store.receive(.pingSent(name: "Mum", failure: nil)) {
            $0.dependents[0].pingSentAt = Self.start.wall + .seconds(60)
            $0.lastOutcome = "pinged Mum"
        }
        XCTAssertEqual(published.messages.withLock { $0 },
                       [MQTTMessage(topic: "lifesignal/mum/cmd/ask_if_ok", payload: "PRESS", retain: false)])
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in", pingPending: true))) {
            $0.dependents[0].report = self.report(.checkedIn, pingPending: true)
            $0.dependents[0].heardAt = Self.start.wall + .seconds(60)
            $0.dependents[0].pingSeenPending = true
        }
        await testClock.advance(by: .seconds(30))
        let answer = "2026-11-22T08:01:30.000Z"
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in", lastCheckIn: answer))) {
            $0.dependents[0].report = self.report(.checkedIn, lastCheckIn: WallTime(iso8601: answer)!)
            $0.dependents[0].heardAt = Self.start.wall + .seconds(90)
            $0.dependents[0].pingSentAt = nil
            $0.dependents[0].pingSeenPending = false
            $0.dependents[0].pingAnsweredAt = WallTime(iso8601: answer)!
        }
        await stop(store)
    }

    func testClearingAPingTellsTheirDeviceAndAFailedPublishIsAnErrorNotASentPing() async {
        let store = makeStore()
        await appear(store, stored: [Self.mum])
        store.send(.ping(name: "Mum"))
        await store.receive(.pingSent(name: "Mum", failure: nil)) {
            $0.dependents[0].pingSentAt = Self.start.wall
            $0.lastOutcome = "pinged Mum"
        }
        store.send(.clearPing(name: "Mum"))
        await store.receive(.pingCleared(name: "Mum", failure: nil)) {
            $0.dependents[0].pingSentAt = nil
            $0.lastOutcome = "cleared the ping to Mum"
        }
        XCTAssertEqual(published.topics, ["lifesignal/mum/cmd/ask_if_ok", "lifesignal/mum/cmd/clear_ping"])
        published.failure.withLock { $0 = MQTTFailure(.notConnected, "the broker is not connected") }
        store.send(.ping(name: "Mum"))
        await store.receive(.pingSent(name: "Mum", failure: "not sent over MQTT: the broker is not connected"))
        await receiveError(store, "Mum: not sent over MQTT: the broker is not connected")
        XCTAssertNil(store.state.dependents[0].pingSentAt)
        store.send(.setError(nil)) { $0.error = nil }
        store.send(.ping(name: "Nobody"))
        await receiveError(store, "no dependent is called \"Nobody\"; there are: Mum")
        await stop(store)
    }

    func testThePressSaysImOnItToWhoeverIsOverdueOrAskingForHelpOnce() async {
        let store = makeStore(configured: [Self.dad])
        await appear(store, stored: [Self.mum])
        store.send(.peerMessage(state("lifesignal/mum", phase: "overdue", overdue: true))) {
            $0.dependents[1].report = self.report(.overdue)
            $0.dependents[1].heardAt = Self.start.wall
            $0.dependents[1].status = .overdue
        }
        store.send(.buttonPressed)
        await store.receive(.onItSent(name: "Mum", failure: nil)) {
            $0.dependents[1].onItSent = true
            $0.lastOutcome = "told Mum you are on it"
        }
        XCTAssertEqual(published.messages.withLock { $0 },
                       [MQTTMessage(topic: "lifesignal/mum/cmd/on_it", payload: "Anna", retain: false)])
        // Their device shows it; other watchers see it in their state.
        store.send(.peerMessage(state("lifesignal/mum", phase: "overdue", overdue: true, onIt: "Anna"))) {
            $0.dependents[1].report = self.report(.overdue, onIt: "Anna")
        }
        // They check in: calm again, and a later overdue needs a new "I'm on it".
        store.send(.peerMessage(state("lifesignal/mum", phase: "checked_in"))) {
            $0.dependents[1].report = self.report(.checkedIn)
            $0.dependents[1].status = .checkedIn
            $0.dependents[1].onItSent = false
        }
        await stop(store)
    }

    func testWhenAllIsWellThePressPingsEveryoneAfterTheWindowAndASecondPressCancels() async {
        let store = makeStore(configured: [Self.dad])
        await appear(store, stored: [Self.mum])
        store.send(.buttonPressed) { $0.confirmingPingAll = true }
        await testClock.advance(by: .seconds(2))
        store.send(.buttonPressed) {
            $0.confirmingPingAll = false
            $0.lastOutcome = "ping to everyone cancelled"
        }
        await testClock.advance(by: .seconds(10))
        await store.expectNoAction()
        XCTAssertEqual(published.topics, [])

        store.send(.buttonPressed) { $0.confirmingPingAll = true }
        await testClock.advance(by: .seconds(5))
        await store.receive(.confirmationEnded) { $0.confirmingPingAll = false }
        await store.receive(.pingSent(name: "Dad", failure: nil)) {
            $0.dependents[0].pingSentAt = Self.start.wall + .seconds(17)
            $0.lastOutcome = "pinged Dad"
        }
        await store.receive(.pingSent(name: "Mum", failure: nil)) {
            $0.dependents[1].pingSentAt = Self.start.wall + .seconds(17)
            $0.lastOutcome = "pinged Mum"
        }
        XCTAssertEqual(Set(published.topics), ["lifesignal/dad/cmd/ask_if_ok", "lifesignal/mum/cmd/ask_if_ok"])
        await stop(store)
    }
}
