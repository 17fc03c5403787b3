import CheckInModels
import ComposableCore
import MQTTClient

extension RespondersFeature {
    /// A message on `<base>/watchers/<id>` (docs/mqtt.md, "Watchers").
    func heard(_ message: MQTTInboundMessage, _ state: inout State) -> Effect<Action> {
        guard let baseTopic, let id = WatcherWire.watcherID(inTopic: message.topic, base: baseTopic) else { return .none }
        let listed = state.responders.firstIndex { $0.source == .watcher(id: id) }
        let read = message.payload.count < message.size
            ? .failure(WatcherWireProblem("it is \(message.size) bytes long; a registration is a short JSON object"))
            : WatcherWire.registration(message.payload)
        switch read {
        case let .failure(problem):
            state.unreadRegistration = "\(TerminalText.quoted(String(message.topic.prefix(200)))): \(problem.message)"
            return .none
        case .success(nil):
            // The watcher stopped following (or this device cleared a removal it had allowed).
            guard let listed else { return .none }
            let name = state.responders.remove(at: listed).name
            state.message = .stoppedWatching(name)
            return .send(.delegate(.respondersUpdated))
        case let .success(registration?):
            if registration.removed == true { return .none }  // this device's own word, heard back
            if state.refusedWatcherIDs.contains(id) {
                // A removed watcher registered again (it was away when it was removed, or started
                // since): the removal is said again, where it will read it.
                let name = state.removedWatchers.first { $0.id == id }?.name ?? registration.name
                return tellWatcher(id, WatcherWire.Registration(name: name, removed: true))
            }
            if let listed {
                guard state.responders[listed].sourcedName != registration.name else { return .none }
                state.responders.remove(at: listed)
            }
            let collided = insert(Responder(source: .watcher(id: id), name: registration.name, kind: "watcher",
                                            channels: ["device"], told: Set(ResponderTopic.allCases), since: clock.now().wall),
                                  &state)
            // A registration replayed by the broker at a (re)connection is not news.
            if !message.retained || listed != nil {
                state.message = collided ? .alreadyExists(registration.name) : .added(registration.name)
            }
            return .send(.delegate(.respondersUpdated))
        }
    }

    /// Adds a responder under a name no other has: a second "Anna" is shown with where it comes
    /// from. True when the name was taken.
    @discardableResult
    func insert(_ responder: Responder, _ state: inout State) -> Bool {
        var responder = responder
        let taken = Set(state.responders.map { $0.name.lowercased() })
        let collided = taken.contains(responder.name.lowercased())
        if collided {
            let label = switch responder.source {
            case let .watcher(id): "watcher \(id)"
            case .backend: "backend"
            case .healthchecks: "healthchecks"
            }
            responder.name = "\(responder.sourcedName) (\(label))"
            if taken.contains(responder.name.lowercased()) {
                responder.name = "\(responder.sourcedName) (\(responder.source.kind) \(responder.source.address))"
            }
        }
        // Watchers first, then the backend's, then healthchecks': each source's own order within.
        let order = Self.order(responder.source)
        let at = state.responders.firstIndex { Self.order($0.source) > order } ?? state.responders.endIndex
        state.responders.insert(responder, at: at)
        return collided
    }

    static func order(_ source: ResponderSource) -> Int {
        switch source {
        case .watcher: 0
        case .backend: 1
        case .healthchecks: 2
        }
    }

    /// Publishes (retained) on the watcher's registration topic: a removal, or nothing (cleared).
    func tellWatcher(_ id: String, _ registration: WatcherWire.Registration?) -> Effect<Action> {
        guard let publish, let baseTopic else { return .none }
        let message = MQTTMessage(topic: WatcherWire.registrationTopic(base: baseTopic, watcher: id),
                                  payload: registration.map(WatcherWire.payload) ?? "", retain: true)
        return .run { send in
            if case let .failure(failure) = await publish(message) {
                await send(.setError("the watcher \(id) was not told over MQTT (it is told again when it next registers): "
                                     + failure.message))
            }
        }
    }
}
