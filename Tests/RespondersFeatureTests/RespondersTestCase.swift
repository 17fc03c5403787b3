import CheckInModels
import CheckInStoreClient
import DeviceClock
import MQTTClient
import RespondersClient
import RespondersFeature
import Synchronization
import TestSupport
import UplinkClient
import XCTest

/// What the responders' tests share: the removed watchers kept in memory, MQTT publishes
/// recorded, and the registrations watchers publish.
class RespondersTestCase: ReducerTestCase {
    final class Stored: Sendable {
        let removed = Mutex<[RemovedWatcher]>([])
        let failure = Mutex<StoreFailure?>(nil)

        var client: ResponderStoreClient {
            ResponderStoreClient(
                removedWatchers: { () throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    return self.removed.withLock { $0 }
                },
                removeWatcher: { watcher throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    self.removed.withLock { $0.removeAll { $0.id == watcher.id }; $0.append(watcher) }
                },
                allowWatcher: { id throws(StoreFailure) in
                    if let failure = self.failure.withLock({ $0 }) { throw failure }
                    self.removed.withLock { $0.removeAll { $0.id == id } }
                })
        }
    }

    final class Published: Sendable {
        let messages = Mutex<[MQTTMessage]>([])

        var publish: @Sendable (MQTTMessage) async -> Result<Void, MQTTFailure> {
            { message in
                self.messages.withLock { $0.append(message) }
                return .success(())
            }
        }

        var all: [MQTTMessage] { messages.withLock { $0 } }
    }

    let stored = Stored()
    let published = Published()
    static let base = "lifesignal/mum"
    static let everything: Set<ResponderTopic> = [.missedCheckIn, .helpAlert]

    func makeStore(paths: ResponderPaths = ResponderPaths(mqttBroker: "mqtt://127.0.0.1:1883"),
                   sources: [String: RespondersClient] = [:]) -> TestStore<RespondersFeature> {
        let feature = RespondersFeature(store: stored.client, sources: sources, publish: published.publish, baseTopic: Self.base,
                                        clock: makeClock(), pollInterval: .seconds(600), announceAfter: .seconds(30))
        return TestStore(initialState: RespondersFeature.State(paths: paths), reducer: feature)
    }

    /// Starts the feature with these watchers removed; no polled source (so no poll runs).
    func appear(_ store: TestStore<RespondersFeature>, removed: [RemovedWatcher] = []) async {
        stored.removed.withLock { $0 = removed }
        store.send(.onAppear) { $0.isLoading = true }
        await store.receive(.loaded(.success(removed))) {
            $0.isLoading = false
            $0.isLoaded = true
            $0.removedWatchers = removed
        }
        await store.receive(.delegate(.refusedWatchersChanged(Set(removed.map(\.id)))))
        await store.receive(.pollDue)
    }

    func registration(_ id: String, _ payload: String, retained: Bool = false) -> MQTTInboundMessage {
        MQTTInboundMessage(topic: "\(Self.base)/watchers/\(id)", payload: Array(payload.utf8), retained: retained)
    }

    func watcher(_ id: String, _ name: String, shown: String? = nil) -> Responder {
        var responder = Responder(source: .watcher(id: id), name: name, kind: "watcher", channels: ["device"], told: Self.everything,
                                  since: Self.start.wall)
        if let shown { responder.name = shown }
        return responder
    }

    /// Anna's watcher (kitchen-1) registers live, the first in the list: the seed's "added".
    func annaConfirms(_ store: TestStore<RespondersFeature>) async {
        store.send(.watcherMessage(registration("kitchen-1", #"{"name":"Anna"}"#))) {
            $0.responders = [self.watcher("kitchen-1", "Anna")]
            $0.message = .added("Anna")
        }
        await store.receive(.delegate(.respondersUpdated))
    }

    /// Tom's watcher (tom-pi), replayed by the broker at a connection: listed after the others, no news.
    func tomIsReplayed(_ store: TestStore<RespondersFeature>) async {
        store.send(.watcherMessage(registration("tom-pi", #"{"name":"Tom"}"#, retained: true))) {
            $0.responders.append(self.watcher("tom-pi", "Tom"))
        }
        await store.receive(.delegate(.respondersUpdated))
    }

    func receiveError(_ store: TestStore<RespondersFeature>, _ message: String) async {
        await store.receive(.setError(message)) { $0.error = message }
    }

    func stop(_ store: TestStore<RespondersFeature>) async {
        store.send(.stop)
        await store.finish()
    }
}
