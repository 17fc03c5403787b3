import CheckInModels
import CheckInStoreClient
import MQTTClient
import RespondersFeature
import TestSupport
import XCTest

/// Watcher devices on the person's side: a registration heard over MQTT lists them (the seed's
/// "contact added"), a second of the same name is told apart ("already exists"), the person
/// removes one (its commands refused, across a restart) and allows it again.
final class RespondersWatcherTests: RespondersTestCase {
    func testAWatcherThatConfirmsIsListedAndToldOfBothAndAReplayedOneIsNotNews() async {
        let store = makeStore()
        await appear(store)
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await annaConfirms(store)
        await tomIsReplayed(store)
        // The same registration again at a reconnection changes nothing.
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#, retained: true)))
        XCTAssertEqual(store.state.reach.line, "A missed check-in is told to: Anna (watcher device, over MQTT); "
                       + "Tom (watcher device, over MQTT). A help alert is told to: Anna (watcher device, over MQTT); "
                       + "Tom (watcher device, over MQTT).")
        await stop(store)
    }

    func testASecondAnnaIsShownWithWhereSheComesFromAndARenameMovesHer() async {
        let store = makeStore()
        await appear(store)
        await annaConfirms(store)
        store.send(.watcherMessage(registration("phone-2", #"{"name":"anna"}"#))) {
            $0.responders.append(self.watcher("phone-2", "anna", shown: "anna (watcher phone-2)"))
            $0.message = .alreadyExists("anna")
        }
        await store.receive(.delegate(.respondersUpdated))
        XCTAssertEqual(store.state.responder(named: "ANNA (watcher phone-2)")?.source, .watcher(id: "phone-2"))
        XCTAssertEqual(store.state.responder(named: "anna")?.source, .watcher(id: "kitchen-1"), "the exact name first")
        store.send(.watcherMessage(registration("phone-2", #"{"name":"Annie"}"#))) {
            $0.responders = [self.watcher("kitchen-1", "Anna"), self.watcher("phone-2", "Annie")]
            $0.message = .added("Annie")
        }
        await store.receive(.delegate(.respondersUpdated))
        await stop(store)
    }

    func testAWatcherThatStopsFollowingLeavesTheListAndAnUnreadableRegistrationIsSaid() async {
        let store = makeStore()
        await appear(store)
        await annaConfirms(store)
        store.send(.watcherMessage(registration("kitchen-1", ""))) {
            $0.responders = []
            $0.message = .stoppedWatching("Anna")
        }
        await store.receive(.delegate(.respondersUpdated))
        store.send(.watcherMessage(registration("odd", #"{"name":""}"#))) {
            $0.unreadRegistration = "\"lifesignal/mum/watchers/odd\": its name is not 1 to 64 bytes of text"
        }
        store.send(.watcherMessage(MQTTInboundMessage(topic: "lifesignal/mum/watchers/big", payload: [], size: 9000))) {
            $0.unreadRegistration = "\"lifesignal/mum/watchers/big\": it is 9000 bytes long; a registration is a short JSON object"
        }
        // A topic with a wildcard-like or empty id is not a watcher's.
        store.send(.watcherMessage(registration("a b", #"{"name":"X"}"#)))
        XCTAssertEqual(store.state.reach.line, "NOBODY is told of a missed check-in. NOBODY is told of a help alert.")
        XCTAssertTrue(store.state.reach.nobodyForMissedCheckIns)
        await stop(store)
    }

    func testRemovingAWatcherRefusesItsCommandsTellsItAndAllowingLetsItConfirmAgain() async {
        let store = makeStore()
        await appear(store)
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await annaConfirms(store)
        let removed = RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: Self.start.wall)
        let removal = WatcherWire.Registration(name: "Anna", removed: true)
        store.send(.remove(name: "anna"))
        await store.receive(.removed(removed, nil)) {
            $0.removedWatchers = [removed]
            $0.responders = []
            $0.message = .removed("Anna")
            $0.owedToWatchers = ["kitchen-1": removal]
        }
        await store.receive(.delegate(.refusedWatchersChanged(["kitchen-1"])))
        await store.receive(.delegate(.respondersUpdated))
        await store.receive(.watcherTold(id: "kitchen-1", removal)) { $0.owedToWatchers = [:] }
        XCTAssertEqual(stored.removed.withLock { $0 }, [removed])
        let marker = MQTTMessage(topic: "lifesignal/mum/watchers/kitchen-1", payload: #"{"name":"Anna","removed":true}"#, retain: true)
        XCTAssertEqual(published.all, [marker])

        // Its own word heard back, then the watcher registering over it (it was away): said again.
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna","removed":true}"#, retained: true)))
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#))) { $0.owedToWatchers = ["kitchen-1": removal] }
        await store.receive(.watcherTold(id: "kitchen-1", removal)) { $0.owedToWatchers = [:] }
        XCTAssertEqual(published.all, [marker, marker])

        // Allowed: said on the same topic, retained, for the watcher to read now or when it connects.
        let allowance = WatcherWire.Registration(name: "Anna", allowed: true)
        store.send(.allow(name: "Anna"))
        await store.receive(.allowed(removed, nil)) {
            $0.removedWatchers = []
            $0.message = .allowed("Anna")
            $0.owedToWatchers = ["kitchen-1": allowance]
        }
        await store.receive(.delegate(.refusedWatchersChanged([])))
        await store.receive(.watcherTold(id: "kitchen-1", allowance)) { $0.owedToWatchers = [:] }
        XCTAssertEqual(published.all.last, MQTTMessage(topic: "lifesignal/mum/watchers/kitchen-1",
                                                       payload: #"{"allowed":true,"name":"Anna"}"#, retain: true))
        XCTAssertEqual(stored.removed.withLock { $0 }, [])
        store.send(.watcherMessage(registration("kitchen-1", #"{"allowed":true,"name":"Anna"}"#, retained: true)))
        await annaConfirms(store)
        await stop(store)
    }

    func testARemovalMadeWhileTheBrokerIsAwayIsOwedAndSaidWhenItIsBack() async {
        let removed = RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: Self.start.wall)
        let removal = WatcherWire.Registration(name: "Anna", removed: true)
        let store = makeStore()
        await appear(store)
        await annaConfirms(store)
        store.send(.remove(name: "Anna"))
        await store.receive(.removed(removed, nil)) {
            $0.removedWatchers = [removed]
            $0.responders = []
            $0.message = .removed("Anna")
            $0.owedToWatchers = ["kitchen-1": removal]
        }
        await store.receive(.delegate(.refusedWatchersChanged(["kitchen-1"])))
        await store.receive(.delegate(.respondersUpdated))
        await store.expectNoAction()
        XCTAssertEqual(published.all, [], "no broker: nothing can be published yet")
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await store.receive(.watcherTold(id: "kitchen-1", removal)) { $0.owedToWatchers = [:] }
        XCTAssertEqual(published.all.map(\.payload), [#"{"name":"Anna","removed":true}"#])
        await stop(store)
    }

    func testAWatcherWhoseRegistrationIsNotReplayedAfterAReconnectionIsNoLongerCounted() async {
        let store = makeStore()
        await appear(store)
        store.send(.brokerConnection(true)) { $0.brokerConnected = true }
        await annaConfirms(store)
        await tomIsReplayed(store)
        // The connection drops; meanwhile Tom's watcher clears its registration, which is not replayed.
        store.send(.brokerConnection(false)) { $0.brokerConnected = false }
        store.send(.brokerConnection(true)) {
            $0.brokerConnected = true
            $0.awaitingReplay = ["kitchen-1", "tom-pi"]
        }
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#, retained: true))) {
            $0.awaitingReplay = ["tom-pi"]
        }
        await testClock.advance(by: .seconds(10))
        await store.receive(.replayWindowEnded) {
            $0.awaitingReplay = []
            $0.responders = [self.watcher("kitchen-1", "Anna")]
            $0.message = .noLongerRegistered("Tom")
        }
        await store.receive(.delegate(.respondersUpdated))
        await stop(store)
    }

    func testNoMoreThanThirtyTwoWatchersAreListed() async {
        let store = makeStore()
        await appear(store)
        for n in 0..<RespondersFeature.mostWatchers {
            store.send(.watcherMessage(registration("w-\(n)", #"{"name":"W\#(n)"}"#, retained: true))) {
                $0.responders.append(self.watcher("w-\(n)", "W\(n)"))
            }
            await store.receive(.delegate(.respondersUpdated))
        }
        store.send(.watcherMessage(registration("w-32", #"{"name":"One too many"}"#, retained: true))) {
            $0.unreadRegistration = "\"lifesignal/mum/watchers/w-32\": more than 32 watchers registered; this one is not listed"
        }
        await stop(store)
    }

    func testWhatCannotBeRemovedOrAllowedHereSaysWhereAndAStoreThatFailsKeepsTheWatcher() async {
        let store = makeStore()
        await appear(store)
        store.send(.remove(name: "Zed"))
        await receiveError(store, "no responder is called \"Zed\" (there are none: lifesignalctl pair prints a code a watcher adds)")
        store.send(.allow(name: "Zed"))
        await receiveError(store, "no removed watcher is called \"Zed\" (none is removed)")
        store.send(.polled(kind: "backend", .success([SourcedResponder(id: "r-1", name: "Bob", kind: "contact", channels: ["app"],
                                                                       told: Self.everything)]))) {
            $0.polled = ["backend"]
            $0.responders = [Responder(source: .backend(id: "r-1"), name: "Bob", kind: "contact", channels: ["app"], told: Self.everything)]
        }
        await store.receive(.delegate(.respondersUpdated))
        store.send(.remove(name: "bob"))
        await receiveError(store, "Bob is told through the LifeSignal backend: remove them in the LifeSignal app")
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#))) {
            $0.responders.insert(self.watcher("kitchen-1", "Anna"), at: 0)
            $0.message = .added("Anna")
        }
        await store.receive(.delegate(.respondersUpdated))
        stored.failure.withLock { $0 = StoreFailure(.full, "the disk is full") }
        store.send(.remove(name: "Anna"))
        let removed = RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: Self.start.wall)
        await store.receive(.removed(removed, StoreFailure(.full, "the disk is full")))
        await receiveError(store, "Anna was not removed (their pings are still taken): the disk is full")
        XCTAssertEqual(store.state.responders.map(\.name), ["Anna", "Bob"])
        store.send(.setError(nil)) { $0.error = nil }
        await stop(store)
    }

    func testRemovedWatchersThatCannotBeReadAreSaidAndTheListStillWorks() async {
        stored.failure.withLock { $0 = StoreFailure(.corrupt, "the database is damaged") }
        let store = makeStore()
        store.send(.onAppear) { $0.isLoading = true }
        await store.receive(.loaded(.failure(StoreFailure(.corrupt, "the database is damaged")))) {
            $0.isLoading = false
            $0.isLoaded = true
            $0.error = "the removed watchers could not be read (their pings are not refused until they are): the database is damaged"
        }
        await store.receive(.pollDue)
        await annaConfirms(store)
        await stop(store)
    }
}

/// What fails on the way: allowing a watcher the store cannot forget, telling a watcher over a
/// broker that refuses, and a device without MQTT (nothing to tell, nothing published).
final class RespondersFailureTests: RespondersTestCase {
    func testAnAllowanceTheStoreCannotKeepLeavesTheWatcherRemovedAndSaysSo() async {
        let removed = RemovedWatcher(id: "kitchen-1", name: "Anna", removedAt: WallTime(secondsSinceEpoch: 1_700_000_000))
        let store = makeStore()
        await appear(store, removed: [removed])
        stored.failure.withLock { $0 = StoreFailure(.readOnly, "the file system is read-only") }
        store.send(.allow(name: "kitchen-1"))
        await store.receive(.allowed(removed, StoreFailure(.readOnly, "the file system is read-only")))
        await receiveError(store, "Anna was not allowed again: the file system is read-only")
        XCTAssertEqual(store.state.refusedWatcherIDs, ["kitchen-1"])
        XCTAssertEqual(published.all, [], "the watcher is not told it may come back")
        await stop(store)
    }

    func testWithoutMQTTNothingIsPublishedAndTheRemovalStillHolds() async {
        let feature = RespondersFeature(store: stored.client, clock: makeClock())
        let store = TestStore(initialState: RespondersFeature.State(paths: ResponderPaths()), reducer: feature)
        await appear(store)
        // Registrations cannot arrive without a broker: a stray one is ignored.
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#)))
        XCTAssertEqual(store.state.reach.line, "NOBODY is told of a missed check-in. NOBODY is told of a help alert.")
        await stop(store)
    }
}
