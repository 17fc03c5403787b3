import CheckInModels
import ComposableCore
import DependentsClient
import MQTTClient
import UplinkClient

extension DependentsFeature {
    enum Request: String {
        case ping
        case clearPing
        case onIt

        /// The person's device's command for it (docs/mqtt.md).
        var command: String {
            switch self {
            case .ping: "ask_if_ok"
            case .clearPing: "clear_ping"
            case .onIt: "on_it"
            }
        }
    }

    /// A ping, a cleared ping or "I'm on it" to one dependent, through their source.
    func send(_ request: Request, to name: String, _ state: State) -> Effect<Action> {
        guard let dependent = state.dependent(named: name) else {
            return .send(.setError(state.unknownName(name)))
        }
        let name = dependent.entry.name
        if dependent.removedByThem, let problem = dependent.shownProblem {
            return .send(.setError("\(name): not sent, \(problem)"))
        }
        let answer: @Sendable (String?) -> Action = { failure in
            switch request {
            case .ping: .pingSent(name: name, failure: failure)
            case .clearPing: .pingCleared(name: name, failure: failure)
            case .onIt: .onItSent(name: name, failure: failure)
            }
        }
        switch dependent.entry.source {
        case let .mqtt(base):
            guard let publish else {
                return .send(.setError("\(name) is watched over MQTT but this device has no [mqtt] broker"))
            }
            // With an MQTT id of its own the watcher signs its commands, so a person's device that
            // removed it can refuse them; without one, the plain payloads Home Assistant sends.
            let payload = state.watcherID.map { WatcherWire.payload(WatcherWire.Sender(watcher: $0, name: state.watcherName)) }
                ?? (request == .onIt ? state.watcherName : "PRESS")
            let message = MQTTMessage(topic: base + "/cmd/" + request.command, payload: payload, retain: false)
            return .run { send in
                switch await publish(message) {
                case .success: await send(answer(nil))
                case let .failure(failure): await send(answer("not sent over MQTT: \(failure.message)"))
                }
            }
        case let .backend(id), let .healthchecks(check: id):
            let kind = dependent.entry.source.kind
            guard dependent.entry.source.canPing else {
                return .send(.setError("\(name) is watched through healthchecks, which cannot carry a ping or \"I'm on it\""))
            }
            guard let client = sources[kind] else {
                return .send(.setError("\(name) is watched through \(Self.sourceName(kind)), which this device has not configured"))
            }
            let watcher = state.watcherName
            return .run { send in
                let result: Result<Void, UplinkFailure> = switch request {
                case .ping: await client.ping(id)
                case .clearPing: await client.clearPing(id)
                case .onIt: await client.onIt(id, watcher)
                }
                switch result {
                case .success: await send(answer(nil))
                case let .failure(failure): await send(answer("not sent to \(Self.sourceName(kind)): \(failure.message)"))
                }
            }
        }
    }

    /// "I'm on it" to each dependent who needs someone and has not had it from this watcher; nil
    /// when nobody needs someone.
    func answerThoseWhoNeedSomeone(_ state: inout State) -> Effect<Action>? {
        let needing = state.dependents.filter { $0.status.needsSomeone && !$0.onItSent && $0.canBeAsked }
        guard !needing.isEmpty else { return nil }
        state.confirmingPingAll = false
        return .merge([.cancel(id: CancelID.confirmation)] + needing.map { send(.onIt, to: $0.entry.name, state) })
    }

    /// Tells a person's device over MQTT that this watcher follows them (retained, so it hears it
    /// whenever it connects). Sent at each connection: a failure now is mended by the next one.
    func register(_ dependent: Dependent, _ state: State) -> Effect<Action> {
        guard state.brokerConnected, let publish, let topic = state.registrationTopic(of: dependent), !dependent.removedByThem
        else { return .none }
        let payload = WatcherWire.payload(WatcherWire.Registration(name: state.watcherName))
        return .run { _ in _ = await publish(MQTTMessage(topic: topic, payload: payload, retain: true)) }
    }

    /// Clears this watcher's registration with someone it stopped following: owed until the
    /// broker takes it.
    func clear(_ topic: String) -> Effect<Action> {
        guard let publish else { return .none }
        return .run { send in
            if case .success = await publish(MQTTMessage(topic: topic, payload: "", retain: true)) {
                await send(.clearingSent(topic))
            }
        }
    }

    /// Their device's word on this watcher's registration: removed, or allowed again.
    func heardRegistration(_ message: MQTTInboundMessage, at index: Int, _ state: inout State) -> Effect<Action> {
        guard case let .success(registration?) = WatcherWire.registration(message.payload) else { return .none }
        if registration.removed == true {
            state.dependents[index].removedByThem = true
            return .none
        }
        if registration.allowed == true, state.dependents[index].removedByThem {
            state.dependents[index].removedByThem = false
            return register(state.dependents[index], state)
        }
        // Its own registration heard back.
        return .none
    }

    /// A message on one of the dependents' topics: their availability or their state.
    func heard(_ message: MQTTInboundMessage, _ state: inout State) -> Effect<Action> {
        if let index = state.dependents.firstIndex(where: { state.registrationTopic(of: $0) == message.topic }) {
            return heardRegistration(message, at: index, &state)
        }
        guard let index = state.dependents.firstIndex(where: { dependent in
            dependent.subscriptions.contains(message.topic)
        }) else { return .none }
        let now = clock.now()
        if message.topic.hasSuffix("/availability") {
            switch message.text {
            case "online":
                state.dependents[index].online = true
                state.dependents[index].offlineSince = nil
            case "offline":
                if state.dependents[index].online != false { state.dependents[index].offlineSince = now.uptime }
                state.dependents[index].online = false
            default:
                state.dependents[index].problem = "their availability is neither online nor offline"
            }
            return refresh(&state)
        }
        switch PeerState.report(from: message.payload) {
        case let .success(report):
            state.dependents[index].problem = nil
            update(&state.dependents[index], with: report, at: now.wall)
        case let .failure(problem):
            // The last good word stays; the problem is shown beside it.
            state.dependents[index].problem = problem.message
        }
        return refresh(&state)
    }

    /// A new word from the source: a ping this watcher sent is answered once their device stops
    /// showing it as pending after it did, or once they checked in after it was sent.
    func update(_ dependent: inout Dependent, with report: DependentReport, at now: WallTime) {
        dependent.report = report
        dependent.heardAt = now
        if let sent = dependent.pingSentAt {
            if report.pingPending {
                dependent.pingSeenPending = true
            } else if dependent.pingSeenPending || (report.lastCheckIn.map { $0 > sent } ?? false) {
                dependent.pingSentAt = nil
                dependent.pingSeenPending = false
                dependent.pingAnsweredAt = report.lastCheckIn ?? now
            }
        }
    }

    /// Every status again at `now`, and the one wake-up at the next moment a heartbeat allowance
    /// runs out.
    func refresh(_ state: inout State) -> Effect<Action> {
        let now = clock.now().uptime
        var nextSilence: Duration?
        for index in state.dependents.indices {
            let (status, silentAt) = Self.status(of: state.dependents[index], at: now, state)
            state.dependents[index].status = status
            if !status.needsSomeone { state.dependents[index].onItSent = false }
            if let silentAt, silentAt > now { nextSilence = min(nextSilence ?? silentAt, silentAt) }
        }
        guard let nextSilence else { return .cancel(id: CancelID.silence) }
        return .run { [clock] send in
            do {
                try await clock.sleep(nextSilence - now)
                await send(.silenceCheckDue)
            } catch {}  // cancelled: a newer word moved the next check
        }
        .cancellable(id: CancelID.silence, cancelInFlight: true)
    }

    /// The status to show, and when it becomes `silent` (or `unknown`) if nothing is heard by then.
    static func status(of dependent: Dependent, at now: Duration, _ state: State) -> (DependentStatus, Duration?) {
        let allowance = dependent.entry.heartbeat
        switch dependent.entry.source {
        case .mqtt:
            if dependent.online == false, let since = dependent.offlineSince {
                return now - since >= allowance ? (.silent, nil) : (dependent.report?.status ?? .unknown, since + allowance)
            }
            guard let report = dependent.report else {
                let since = state.watchingSince ?? now
                return now - since >= allowance ? (.silent, nil) : (.unknown, since + allowance)
            }
            return (report.status, nil)
        case .backend, .healthchecks:
            guard let report = dependent.report else { return (.unknown, nil) }
            let kind = dependent.entry.source.kind
            guard state.sourceFailures[kind] != nil, let answered = state.lastPolled[kind] else { return (report.status, nil) }
            return now - answered >= allowance ? (.unknown, nil) : (report.status, answered + allowance)
        }
    }

    /// "the backend", "healthchecks": how messages name a polled source.
    static func sourceName(_ kind: String) -> String {
        kind == "backend" ? "the backend" : kind
    }

    func refusal(toAdd entry: DependentEntry, _ state: State) -> String? {
        if entry.name.isEmpty { return "a dependent needs a name: add --name NAME" }
        if let same = state.dependent(named: entry.name) {
            return "\(same.entry.name) is already a dependent: choose another name with --name"
        }
        if let same = state.dependents.first(where: { $0.entry.source == entry.source }) {
            return "this code is \(same.entry.name)'s, who is already a dependent"
        }
        switch entry.source {
        case .mqtt where publish == nil:
            return "the code is for MQTT, and this device has no [mqtt] broker: add [mqtt] to its config"
        case .backend where sources["backend"] == nil:
            return "the code is for the LifeSignal backend, and this device has no [uplink]: add [uplink] to its config"
        case .healthchecks where sources["healthchecks"] == nil:
            return "the code is for healthchecks, and this device has no [dependents] healthchecks_read_key_file"
        default:
            return nil
        }
    }

}
