import CheckInModels
import ComposableCore
import MQTTClient

extension RespondersFeature {
    /// A message on `<base>/watchers/<id>` (docs/mqtt.md, "Watchers").
    func heard(_ message: MQTTInboundMessage, _ state: inout State) -> Effect<Action> {
        guard let baseTopic, let id = WatcherWire.watcherID(inTopic: message.topic, base: baseTopic) else { return .none }
        // Heard again since the connection came back: still registered.
        state.awaitingReplay.remove(id)
        let listed = state.responders.firstIndex { $0.source == .watcher(id: id) }
        let read = message.payload.count < message.size
            ? .failure(WatcherWireProblem("it is \(message.size) bytes long; a registration is a short JSON object"))
            : WatcherWire.registration(message.payload)
        switch read {
        case let .failure(problem):
            state.unreadRegistration = "\(TerminalText.quoted(String(message.topic.prefix(200)))): \(problem.message)"
            return .none
        case .success(nil):
            // The watcher stopped following.
            guard let listed else { return .none }
            let name = state.responders.remove(at: listed).name
            state.message = .stoppedWatching(name)
            return .send(.delegate(.respondersUpdated))
        case let .success(registration?):
            if registration.isPersonsWord { return .none }  // this device's own word, heard back
            if state.refusedWatcherIDs.contains(id) {
                // A removed watcher registered again (it was away when it was removed, or started
                // since): the removal is said again, where it will read it.
                let name = state.removedWatchers.first { $0.id == id }?.name ?? registration.name
                return tellWatcher(id, WatcherWire.Registration(name: name, removed: true), &state)
            }
            if let listed {
                guard state.responders[listed].sourcedName != registration.name else { return .none }
                state.responders.remove(at: listed)
            } else if state.responders.count(where: { $0.source.kind == "mqtt" }) >= Self.mostWatchers {
                // Anyone who can write on the broker could register: the list stays readable.
                state.unreadRegistration = "\(TerminalText.quoted(String(message.topic.prefix(200)))): more than "
                    + "\(Self.mostWatchers) watchers registered; this one is not listed"
                return .none
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

    /// Publishes (retained) on the watcher's registration topic: a removal or an allowance. Owed
    /// until the broker takes it, and published again at each connection until then, so a watcher
    /// is never left believing the opposite of what this device decided.
    func tellWatcher(_ id: String, _ registration: WatcherWire.Registration, _ state: inout State) -> Effect<Action> {
        state.owedToWatchers[id] = registration
        guard state.brokerConnected else { return .none }
        return publishOwed(id, registration)
    }

    func publishOwed(_ id: String, _ registration: WatcherWire.Registration) -> Effect<Action> {
        guard let publish, let baseTopic else { return .none }
        let message = MQTTMessage(topic: WatcherWire.registrationTopic(base: baseTopic, watcher: id),
                                  payload: WatcherWire.payload(registration), retain: true)
        return .run { send in
            switch await publish(message) {
            case .success: await send(.watcherTold(id: id, registration))
            case .failure: break  // owed: published again when the broker is back
            }
        }
    }
}
