import CheckInModels
import CheckInStoreClient
import DependentsClient
import DependentsFeature
import DeviceClock
import MQTTClient
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// What the dependents' tests share: a store kept in memory, MQTT publishes recorded, and the
/// messages a person's device publishes.
class DependentsTestCase: ReducerTestCase {
    final class Stored: Sendable {
        let contents = Mutex(StoredDependents())
        let failure = Mutex<StoreFailure?>(nil)

        var client: DependentStoreClient {
            DependentStoreClient(
                load: { () throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    return self.contents.withLock { $0 }
                },
                add: { entry throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    self.contents.withLock { $0.entries.append(entry) }
                },
                remove: { name throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    self.contents.withLock { $0.entries.removeAll { $0.name == name } }
                },
                saveSortOption: { option throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    self.contents.withLock { $0.sortOption = option }
                })
        }
    }

    final class Published: Sendable {
        let messages = Mutex<[MQTTMessage]>([])
        let failure = Mutex<MQTTFailure?>(nil)

        var publish: @Sendable (MQTTMessage) async -> Result<Void, MQTTFailure> {
            { message in
                if let failure = self.failure.withLock({ $0 }) { return .failure(failure) }
                self.messages.withLock { $0.append(message) }
                return .success(())
            }
        }

        var topics: [String] { messages.withLock { $0.map(\.topic) } }
    }

    let stored = Stored()
    let published = Published()

    static let mum = DependentEntry(name: "Mum", source: .mqtt(baseTopic: "lifesignal/mum"), heartbeat: .seconds(180))
    static let dad = DependentEntry(name: "Dad", source: .mqtt(baseTopic: "lifesignal/dad"), heartbeat: .seconds(180),
                                    fromConfig: true)

    func makeStore(configured: [DependentEntry] = [], sources: [String: DependentsClient] = [:], mqtt: Bool = true,
                   watcherID: String? = nil) -> TestStore<DependentsFeature> {
        let feature = DependentsFeature(store: stored.client, sources: sources, publish: mqtt ? published.publish : nil,
                                        clock: makeClock())
        return TestStore(initialState: DependentsFeature.State(watcherName: "Anna", watcherID: watcherID, configured: configured),
                         reducer: feature)
    }

    /// Starts the feature with these dependents (MQTT only, so no poll runs) and asserts the load.
    func appear(_ store: TestStore<DependentsFeature>, stored entries: [DependentEntry], sort: DependentsSortOption? = nil,
                subscriptions: [String]? = nil) async {
        stored.contents.withLock { $0 = StoredDependents(entries: entries, sortOption: sort) }
        store.send(.onAppear) {
            $0.isLoading = true
            $0.watchingSince = Self.start.uptime
        }
        let all = store.state.configured + entries
        await store.receive(.loaded(.success(StoredDependents(entries: entries, sortOption: sort)))) {
            $0.isLoading = false
            $0.isLoaded = true
            if let sort { $0.sortOption = sort }
            $0.dependents = all.map(Dependent.init(entry:))
        }
        await store.receive(.delegate(.subscriptionsChanged(subscriptions ?? all.flatMap { Dependent(entry: $0).subscriptions })))
        await store.receive(.delegate(.contactsUpdated))
        await store.receive(.pollDue)
    }

    /// Starts a feature whose dependents are all polled (or none yet): no MQTT topics, a first poll.
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

    /// The seed's `setError`: what was asked for failed, and the error says so.
    func receiveError(_ store: TestStore<DependentsFeature>, _ message: String) async {
        await store.receive(.setError(message)) { $0.error = message }
    }

    func stop(_ store: TestStore<DependentsFeature>) async {
        store.send(.stop)
        await store.finish()
    }

    /// What a person's device publishes on `<base>/state` (docs/mqtt.md), trimmed to what matters.
    func state(_ base: String, phase: String, overdue: Bool = false, helpAlert: Bool = false, pingPending: Bool = false,
               lastCheckIn: String? = "2026-11-22T07:00:00.000Z", deadline: String? = "2026-11-23T07:00:00.000Z",
               onIt: String? = nil) -> MQTTInboundMessage {
        func text(_ value: String?) -> String { value.map { "\"\($0)\"" } ?? "null" }
        let json = "{\"indicator\":\"\(phase)\",\"phase\":\"\(phase)\",\"overdue\":\(overdue),\"last_check_in\":\(text(lastCheckIn)),"
            + "\"next_deadline\":\(text(deadline)),\"help_alert\":\(helpAlert),\"ping_pending\":\(pingPending),"
            + "\"fault\":false,\"conditions\":[],\"away\":\(phase == "away"),\"on_it\":\(text(onIt))}"
        return MQTTInboundMessage(topic: base + "/state", payload: Array(json.utf8), retained: true)
    }

    func availability(_ base: String, _ text: String) -> MQTTInboundMessage {
        MQTTInboundMessage(topic: base + "/availability", payload: Array(text.utf8), retained: true)
    }

    static let lastCheckIn = WallTime(iso8601: "2026-11-22T07:00:00.000Z")!
    static let deadline = WallTime(iso8601: "2026-11-23T07:00:00.000Z")!

    func report(_ status: DependentStatus, pingPending: Bool = false, lastCheckIn: WallTime? = lastCheckIn,
                onIt: String? = nil) -> DependentReport {
        DependentReport(status: status, lastCheckIn: lastCheckIn, deadline: Self.deadline, pingPending: pingPending, onIt: onIt)
    }
}
