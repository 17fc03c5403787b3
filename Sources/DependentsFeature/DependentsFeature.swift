import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DependentsClient
public import DeviceClock
public import MQTTClient

/// The people a watcher looks after (the app's `DependentsFeature`): who they are, how each is
/// doing by the word of their source, pings and "I'm on it", and the watcher's button.
///
/// Sources: MQTT peers (their device's retained `availability` and `state`, heard on the watcher's
/// own broker connection and routed here as `peerMessage`), and the polled ones behind
/// `DependentsClient` (the LifeSignal backend, healthchecks). A dependent is `silent` when their
/// device has said `offline` for longer than their heartbeat allowance, or nothing has been heard
/// of them for that long since the watcher started; `unknown` while a polled source has failed
/// for that long. Nothing unreadable ever becomes "checked in".
public struct DependentsFeature: Reducer {
    public var store: DependentStoreClient
    /// The polled sources by kind (`backend`, `healthchecks`): only those configured.
    public var sources: [String: DependentsClient]
    /// Publishes on the watcher's broker connection; nil without `[mqtt]`.
    public var publish: (@Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>)?
    public var clock: DeviceClock
    public var pollInterval: Duration
    /// How long a press's "ping everyone" waits for a second press that cancels it.
    public var confirmationWindow: Duration

    public init(store: DependentStoreClient, sources: [String: DependentsClient] = [:],
                publish: (@Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>)? = nil,
                clock: DeviceClock, pollInterval: Duration = .seconds(60), confirmationWindow: Duration = .seconds(5)) {
        self.store = store
        self.sources = sources
        self.publish = publish
        self.clock = clock
        self.pollInterval = pollInterval
        self.confirmationWindow = confirmationWindow
    }

    public enum CancelID {
        static let poll = EffectID("dependents-poll")
        static let silence = EffectID("dependents-silence")
        static let confirmation = EffectID("dependents-confirmation")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .onAppear:
            guard !state.isLoaded, !state.isLoading else { return .none }
            state.isLoading = true
            state.watchingSince = clock.now().uptime
            return .run { [store] send in
                await send(.loaded(await Result { () async throws(StoreFailure) in try await store.load() }))
            }

        case let .loaded(.success(stored)):
            state.isLoading = false
            state.isLoaded = true
            if let option = stored.sortOption { state.sortOption = option }
            var entries = state.configured
            for entry in stored.entries where !entries.contains(where: { $0.name.lowercased() == entry.name.lowercased() }) {
                entries.append(entry)
            }
            state.dependents = entries.map(Dependent.init(entry:))
            return .merge(refresh(&state), .send(.delegate(.subscriptionsChanged(state.subscriptions))),
                          .send(.delegate(.contactsUpdated)), .send(.pollDue),
                          .merge(state.dependents.map { register($0, state) }))

        case let .loaded(.failure(failure)):
            // The configured dependents are still watched; those added by code come back when the
            // store reads again (the next start).
            state.isLoading = false
            state.isLoaded = true
            state.dependents = state.configured.map(Dependent.init(entry:))
            state.error = "the dependents added by code could not be read: \(failure.message)"
            return .merge(refresh(&state), .send(.delegate(.subscriptionsChanged(state.subscriptions))),
                          .send(.delegate(.contactsUpdated)), .send(.pollDue))

        case .stop:
            state.confirmingPingAll = false
            return .merge(.cancel(id: CancelID.poll), .cancel(id: CancelID.silence), .cancel(id: CancelID.confirmation))

        case let .peerMessage(message):
            return heard(message, &state)

        case let .brokerConnection(connected):
            state.brokerConnected = connected
            guard connected else { return .none }
            return .merge(state.dependents.map { register($0, state) } + state.owedClearings.sorted().map(clear))

        case let .clearingSent(topic):
            state.owedClearings.remove(topic)
            return .none

        case .pollDue:
            let kinds = Set(state.dependents.map(\.entry.source.kind)).filter { sources[$0] != nil }.sorted()
            guard !kinds.isEmpty else { return .cancel(id: CancelID.poll) }
            let fetches: [Effect<Action>] = kinds.map { kind in
                .run { [client = sources[kind]!] send in await send(.polled(kind: kind, await client.fetch())) }
            }
            let next: Effect<Action> = .run { [clock, pollInterval] send in
                do {
                    try await clock.sleep(pollInterval)
                    await send(.pollDue)
                } catch {}  // cancelled: the poll stopped or was restarted
            }
            .cancellable(id: CancelID.poll, cancelInFlight: true)
            return .merge(fetches + [next])

        case let .polled(kind, .success(found)):
            let now = clock.now()
            state.sourceFailures[kind] = nil
            state.lastPolled[kind] = now.uptime
            for index in state.dependents.indices where state.dependents[index].entry.source.kind == kind {
                let address = state.dependents[index].entry.source.address
                guard let sourced = found[address] else {
                    state.dependents[index].report = nil
                    state.dependents[index].problem = "\(Self.sourceName(kind)) does not list \(TerminalText.quoted(address))"
                    continue
                }
                state.dependents[index].problem = nil
                update(&state.dependents[index], with: sourced.report, at: now.wall)
            }
            return refresh(&state)

        case let .polled(kind, .failure(failure)):
            state.sourceFailures[kind] = failure.message
            for index in state.dependents.indices where state.dependents[index].entry.source.kind == kind {
                state.dependents[index].problem = "\(Self.sourceName(kind)) cannot be asked: \(failure.message)"
            }
            return refresh(&state)

        case .silenceCheckDue:
            return refresh(&state)

        case let .setSortOption(option):
            state.sortOption = option
            return .run { [store] send in
                do throws(StoreFailure) {
                    try await store.saveSortOption(option)
                    await send(.sortOptionSaved(nil))
                } catch {
                    await send(.sortOptionSaved(error))
                }
            }

        case .sortOptionSaved(nil):
            state.lastOutcome = "sorted by \(state.sortOption.rawValue)"
            return .none

        case let .sortOptionSaved(failure?):
            return .send(.setError("the sort order is used but was not saved (it is lost at a restart): \(failure.message)"))

        case let .add(code, name):
            let entry = DependentEntry(name: name ?? code.name, source: code.source, heartbeat: code.heartbeat)
            if let problem = refusal(toAdd: entry, state) {
                return .send(.setError(problem))
            }
            let source = sources[entry.source.kind]
            return .run { [store] send in
                // A polled source learns first that this watcher follows them (and says whether
                // they exist); only then is the entry kept.
                if let source, case let .failure(failure) = await source.add(entry.source.address) {
                    return await send(.setError("\(entry.name) was not added: \(Self.sourceName(source.kind)) says: \(failure.message)"))
                }
                do throws(StoreFailure) {
                    try await store.add(entry)
                    await send(.added(entry, nil))
                } catch {
                    await send(.added(entry, error))
                }
            }

        case let .added(entry, nil):
            if let problem = refusal(toAdd: entry, state) {
                return .send(.setError(problem))
            }
            state.dependents.append(Dependent(entry: entry))
            // Followed again before the clearing went: the registration below replaces it.
            if let topic = state.registrationTopic(of: Dependent(entry: entry)) { state.owedClearings.remove(topic) }
            state.lastOutcome = "added \(entry.name)"
            return .merge(refresh(&state), .send(.delegate(.subscriptionsChanged(state.subscriptions))),
                          .send(.delegate(.contactsUpdated)), sources[entry.source.kind] == nil ? .none : .send(.pollDue),
                          register(Dependent(entry: entry), state))

        case let .added(entry, failure?):
            return .send(.setError("\(entry.name) was not added: \(failure.message)"))

        case let .remove(name):
            guard let dependent = state.dependent(named: name) else {
                return .send(.setError(state.unknownName(name)))
            }
            guard !dependent.entry.fromConfig else {
                return .send(.setError("\(dependent.entry.name) is in the config file ([dependents.<name>]): remove them there and restart"))
            }
            let stored = dependent.entry.name
            let source = sources[dependent.entry.source.kind], address = dependent.entry.source.address
            return .run { [store] send in
                if let source, case let .failure(failure) = await source.remove(address) {
                    return await send(.setError("\(stored) was not removed: \(Self.sourceName(source.kind)) says: \(failure.message)"))
                }
                do throws(StoreFailure) {
                    try await store.remove(stored)
                    await send(.removed(name: stored, nil))
                } catch {
                    await send(.removed(name: stored, error))
                }
            }

        case let .removed(name, nil):
            let leaving = state.dependents.first { $0.entry.name == name }.flatMap { state.registrationTopic(of: $0) }
            if let leaving { state.owedClearings.insert(leaving) }
            state.dependents.removeAll { $0.entry.name == name }
            state.lastOutcome = "removed \(name)"
            return .merge(refresh(&state), .send(.delegate(.subscriptionsChanged(state.subscriptions))),
                          .send(.delegate(.contactsUpdated)), leaving.map { state.brokerConnected ? clear($0) : .none } ?? .none)

        case let .removed(name, failure?):
            return .send(.setError("\(name) was not removed: \(failure.message)"))

        case let .ping(name):
            return send(.ping, to: name, state)

        case let .pingSent(name, nil):
            guard let index = state.index(named: name) else { return .none }
            state.dependents[index].pingSentAt = clock.now().wall
            state.dependents[index].pingSeenPending = false
            state.dependents[index].pingAnsweredAt = nil
            state.lastOutcome = "pinged \(name)"
            return .none

        case let .clearPing(name):
            return send(.clearPing, to: name, state)

        case let .pingCleared(name, nil):
            guard let index = state.index(named: name) else { return .none }
            state.dependents[index].pingSentAt = nil
            state.dependents[index].pingSeenPending = false
            state.lastOutcome = "cleared the ping to \(name)"
            return .none

        case let .onIt(name):
            return send(.onIt, to: name, state)

        case let .onItSent(name, nil):
            guard let index = state.index(named: name) else { return .none }
            state.dependents[index].onItSent = true
            state.lastOutcome = "told \(name) you are on it"
            return .none

        case let .pingSent(name, failure?), let .pingCleared(name, failure?), let .onItSent(name, failure?):
            return .send(.setError("\(name): \(failure)"))

        case .answerThoseWhoNeedSomeone:
            return answerThoseWhoNeedSomeone(&state) ?? .none

        case .buttonPressed:
            if let answered = answerThoseWhoNeedSomeone(&state) { return answered }
            if state.confirmingPingAll {
                state.confirmingPingAll = false
                state.lastOutcome = "ping to everyone cancelled"
                return .cancel(id: CancelID.confirmation)
            }
            guard state.dependents.contains(where: \.canBeAsked) else {
                return .send(.setError("nobody to ping: no dependent whose source carries a ping (healthchecks does not)"))
            }
            state.confirmingPingAll = true
            return .run { [clock, confirmationWindow] send in
                do {
                    try await clock.sleep(confirmationWindow)
                    await send(.confirmationEnded)
                } catch {}  // cancelled by the second press
            }
            .cancellable(id: CancelID.confirmation, cancelInFlight: true)

        case .confirmationEnded:
            guard state.confirmingPingAll else { return .none }
            state.confirmingPingAll = false
            let names = state.dependents.filter(\.canBeAsked).map(\.entry.name)
            return .merge(names.map { send(.ping, to: $0, state) })

        case let .setError(error):
            state.error = error
            return .none

        case .delegate:
            return .none
        }
    }
}
