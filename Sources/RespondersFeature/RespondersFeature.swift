import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import MQTTClient
public import RespondersClient

/// The people who are told when the person behind this device needs someone (the app's
/// `RespondersFeature`): watcher devices that paired over MQTT (their retained registration on
/// `<base>/watchers/<id>`), and those the backend and healthchecks name (polled). The person can
/// remove a watcher (its pings are refused, across restarts) and allow it again.
public struct RespondersFeature: Reducer {
    public var store: ResponderStoreClient
    /// The polled sources by kind (`backend`, `healthchecks`): only those configured.
    public var sources: [String: RespondersClient]
    /// Publishes on the device's broker connection; nil without `[mqtt]`.
    public var publish: (@Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>)?
    /// The device's MQTT base topic (`lifesignal/<id>`); nil without `[mqtt]`.
    public var baseTopic: String?
    public var clock: DeviceClock
    /// How long after a polled source failed it is asked again.
    public var pollInterval: Duration
    /// How long after the start the reach line is logged: time for retained registrations and the
    /// first polls to arrive, so the line does not say "nobody" about people it has not heard yet.
    public var announceAfter: Duration
    /// How long after a (re)connection a listed watcher's retained registration may take to be
    /// heard again before it counts as gone.
    public var replayWindow: Duration
    /// At most this many watchers are listed: anyone who can write on the broker could register.
    public static let mostWatchers = 32

    public init(store: ResponderStoreClient, sources: [String: RespondersClient] = [:],
                publish: (@Sendable (MQTTMessage) async -> Result<Void, MQTTFailure>)? = nil, baseTopic: String? = nil,
                clock: DeviceClock, pollInterval: Duration = .seconds(600), announceAfter: Duration = .seconds(30),
                replayWindow: Duration = .seconds(10)) {
        self.store = store
        self.sources = sources
        self.publish = publish
        self.baseTopic = baseTopic
        self.clock = clock
        self.pollInterval = pollInterval
        self.announceAfter = announceAfter
        self.replayWindow = replayWindow
    }

    public enum CancelID {
        static let poll = EffectID("responders-poll")
        static let announce = EffectID("responders-announce")
        static let replay = EffectID("responders-replay")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .onAppear:
            guard !state.isLoaded, !state.isLoading else { return .none }
            state.isLoading = true
            return .merge(
                .run { [store] send in
                    await send(.loaded(await Result { () async throws(StoreFailure) in try await store.removedWatchers() }))
                },
                .run { [clock, announceAfter] send in
                    do {
                        try await clock.sleep(announceAfter)
                        await send(.announceReach)
                    } catch {}  // cancelled: the daemon stopped first
                }
                .cancellable(id: CancelID.announce, cancelInFlight: true))

        case let .loaded(.success(removed)):
            state.isLoading = false
            state.isLoaded = true
            state.removedWatchers = removed
            let ids = state.refusedWatcherIDs
            state.responders.removeAll { if case let .watcher(id) = $0.source { ids.contains(id) } else { false } }
            return .merge(.send(.delegate(.refusedWatchersChanged(ids))), .send(.pollDue))

        case let .loaded(.failure(failure)):
            // Nobody removed can be told apart now: say so; the list itself is still shown.
            state.isLoading = false
            state.isLoaded = true
            state.error = "the removed watchers could not be read (their pings are not refused until they are): \(failure.message)"
            return .send(.pollDue)

        case .stop:
            return .merge(.cancel(id: CancelID.poll), .cancel(id: CancelID.announce), .cancel(id: CancelID.replay))

        case let .watcherMessage(message):
            return heard(message, &state)

        case let .brokerConnection(connected):
            state.brokerConnected = connected
            guard connected else {
                state.awaitingReplay = []
                return .cancel(id: CancelID.replay)
            }
            state.awaitingReplay = Set(state.responders.compactMap { if case let .watcher(id) = $0.source { id } else { nil } })
            let owed = state.owedToWatchers.sorted { $0.key < $1.key }.map { publishOwed($0.key, $0.value) }
            let window: Effect<Action> = state.awaitingReplay.isEmpty ? .none : .run { [clock, replayWindow] send in
                do {
                    try await clock.sleep(replayWindow)
                    await send(.replayWindowEnded)
                } catch {}  // cancelled: the connection went again, or the daemon stopped
            }
            .cancellable(id: CancelID.replay, cancelInFlight: true)
            return .merge(owed + [window])

        case .replayWindowEnded:
            let gone = state.awaitingReplay
            state.awaitingReplay = []
            let names = state.responders.filter { if case let .watcher(id) = $0.source { gone.contains(id) } else { false } }
                .map(\.name)
            guard !names.isEmpty else { return .none }
            state.responders.removeAll { if case let .watcher(id) = $0.source { gone.contains(id) } else { false } }
            state.message = .noLongerRegistered(names.joined(separator: ", "))
            return .send(.delegate(.respondersUpdated))

        case let .watcherTold(id, registration):
            // Only what is still owed: a newer decision for the same watcher stays owed.
            if state.owedToWatchers[id] == registration { state.owedToWatchers[id] = nil }
            return .none

        case .pollDue:
            // Asked at the start and at each `lifesignalctl responders`, not on a timer: who is told
            // changes when the family changes it, and an idle device should not wake for it. Only a
            // source that failed is asked again later (`pollInterval`).
            let kinds = state.paths.polledKinds.filter { sources[$0] != nil }
            return kinds.isEmpty ? .none : .merge(fetches(kinds))

        case .refresh:
            let kinds = state.paths.polledKinds.filter { sources[$0] != nil }
            guard !kinds.isEmpty else { return .send(.delegate(.refreshed)) }
            state.refreshing = Set(kinds)
            return .merge(fetches(kinds))

        case let .polled(kind, result):
            state.polled.insert(kind)
            switch result {
            case let .success(found):
                state.sourceFailures[kind] = nil
                let before = state.responders
                state.responders.removeAll { $0.source.kind == kind }
                for sourced in found {
                    let source: ResponderSource = kind == "backend" ? .backend(id: sourced.id) : .healthchecks(id: sourced.id)
                    insert(Responder(source: source, name: sourced.name, kind: sourced.kind, channels: sourced.channels,
                                     told: sourced.told), &state)
                }
                let changed = before != state.responders
                // Every source answers again: no retry stays waiting.
                let retry: Effect<Action> = state.sourceFailures.isEmpty ? .cancel(id: CancelID.poll) : .none
                return .merge(finishRefresh(kind, &state), changed ? .send(.delegate(.respondersUpdated)) : .none, retry,
                              announceOnceAsked(&state))
            case let .failure(failure):
                // The last list stays (they are probably still told); the reach line says it is not
                // current, and the source is asked again after `pollInterval`.
                state.sourceFailures[kind] = failure.message
                let retry: Effect<Action> = .run { [clock, pollInterval] send in
                    do {
                        try await clock.sleep(pollInterval)
                        await send(.pollDue)
                    } catch {}  // cancelled: the daemon stopped
                }
                .cancellable(id: CancelID.poll, cancelInFlight: true)
                return .merge(finishRefresh(kind, &state), retry, announceOnceAsked(&state))
            }

        case .announceReach:
            state.announceDue = true
            return announceOnceAsked(&state)

        case let .remove(name):
            guard let responder = state.responder(named: name) else {
                return .send(.setError(state.unknownName(name)))
            }
            guard case let .watcher(id) = responder.source else {
                return .send(.setError(Self.notRemovableHere(responder)))
            }
            let removed = RemovedWatcher(id: id, name: responder.sourcedName, removedAt: clock.now().wall)
            return .run { [store] send in
                do throws(StoreFailure) {
                    try await store.removeWatcher(removed)
                    await send(.removed(removed, nil))
                } catch {
                    await send(.removed(removed, error))
                }
            }

        case let .removed(watcher, nil):
            state.removedWatchers.removeAll { $0.id == watcher.id }
            state.removedWatchers.append(watcher)
            state.responders.removeAll { $0.source == .watcher(id: watcher.id) }
            state.message = .removed(watcher.name)
            return .merge(.send(.delegate(.refusedWatchersChanged(state.refusedWatcherIDs))),
                          .send(.delegate(.respondersUpdated)),
                          tellWatcher(watcher.id, WatcherWire.Registration(name: watcher.name, removed: true), &state))

        case let .removed(watcher, failure?):
            return .send(.setError("\(watcher.name) was not removed (their pings are still taken): \(failure.message)"))

        case let .allow(name):
            guard let watcher = state.removedWatcher(named: name) else {
                let removed = state.removedWatchers.map(\.name)
                return .send(.setError("no removed watcher is called \(TerminalText.quoted(String(name.prefix(64))))"
                                       + (removed.isEmpty ? " (none is removed)" : "; removed: \(removed.joined(separator: ", "))")))
            }
            return .run { [store] send in
                do throws(StoreFailure) {
                    try await store.allowWatcher(watcher.id)
                    await send(.allowed(watcher, nil))
                } catch {
                    await send(.allowed(watcher, error))
                }
            }

        case let .allowed(watcher, nil):
            state.removedWatchers.removeAll { $0.id == watcher.id }
            state.message = .allowed(watcher.name)
            // The allowance, retained, tells the watcher (now or when it connects); it registers again.
            return .merge(.send(.delegate(.refusedWatchersChanged(state.refusedWatcherIDs))),
                          tellWatcher(watcher.id, WatcherWire.Registration(name: watcher.name, allowed: true), &state))

        case let .allowed(watcher, failure?):
            return .send(.setError("\(watcher.name) was not allowed again: \(failure.message)"))

        case let .setError(error):
            state.error = error
            return .none

        case .delegate:
            return .none
        }
    }

    private func fetches(_ kinds: [String]) -> [Effect<Action>] {
        kinds.map { kind in
            .run { [client = sources[kind]!] send in await send(.polled(kind: kind, await client.fetch())) }
        }
    }

    /// The reach line goes to the log when the start's wait has ended and every polled source has
    /// answered or failed, whichever is later: never "nobody" about a source not asked yet.
    private func announceOnceAsked(_ state: inout State) -> Effect<Action> {
        if state.announceDue, !state.reachAnnounced, state.everySourceAsked { state.reachAnnounced = true }
        return .none
    }

    private func finishRefresh(_ kind: String, _ state: inout State) -> Effect<Action> {
        guard state.refreshing.remove(kind) != nil, state.refreshing.isEmpty else { return .none }
        return .send(.delegate(.refreshed))
    }

    /// Where a responder the device cannot remove is removed.
    static func notRemovableHere(_ responder: Responder) -> String {
        switch responder.source {
        case .backend:
            "\(responder.name) is told through the LifeSignal backend: remove them in the LifeSignal app"
        case .healthchecks:
            "\(responder.name) is an integration of the healthchecks project: remove it from the checks on the healthchecks site"
        case .watcher:
            "\(responder.name) is a watcher device"
        }
    }
}
