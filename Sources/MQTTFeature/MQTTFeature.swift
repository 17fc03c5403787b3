public import Backoff
public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock
public import MQTTClient
import UploadFeature
import UplinkClient

/// The device on an MQTT broker (Home Assistant's, or a fleet's): connected while the daemon runs
/// and reconnected with the shared backoff, announced with Home Assistant discovery, its state
/// retained on `<base>/state`, its events stored as they happen and published in order once the
/// broker has them, and commands taken from `<base>/cmd/<name>` (docs/mqtt.md).
///
/// Nothing on the device waits for the broker: a check-in is stored and shown whatever MQTT does;
/// its event waits in the store. An outage is a condition in `status`, and a fault on the LEDs
/// only when MQTT is the only way the device can tell anyone anything.
public struct MQTTFeature: Reducer {
    public var client: MQTTClient
    public var store: DeviceEventStoreClient
    public var clock: DeviceClock
    public var backoff: Backoff
    /// A number in the range given (the backoff's jitter); tests pass a fixed one.
    public var random: @Sendable (ClosedRange<Int64>) -> Int64
    /// New ids for events.
    public var newID: @Sendable () -> CheckInID
    public var identity: MQTTIdentity
    let events: UploadFeature<DeviceEvent>

    /// How long the broker may be away before that is a fault (MQTT the only way to reach anyone):
    /// a broker restart or a short network outage does not blink the LEDs.
    public static let faultGrace = Duration.seconds(60)
    /// Remote check-ins closer together than this are refused: a looping automation must not fill
    /// the history (and the backend) with check-ins.
    public static let remoteCheckInSpacing = Duration.seconds(60)
    /// Commands are a word ("PRESS"); anything longer is refused unread.
    public static let largestCommand = 256
    /// How long a shutdown waits for the broker to take `offline` before it disconnects anyway.
    public static let goodbyeWait = Duration.seconds(2)

    public init(identity: MQTTIdentity, client: MQTTClient, store: DeviceEventStoreClient, queue: UploadQueueClient<DeviceEvent>,
                clock: DeviceClock, backoff: Backoff, random: @escaping @Sendable (ClosedRange<Int64>) -> Int64,
                newID: @escaping @Sendable () -> CheckInID) {
        self.identity = identity
        self.client = client
        self.store = store
        self.clock = clock
        self.backoff = backoff
        self.random = random
        self.newID = newID
        events = UploadFeature(
            queue: queue,
            request: { [client] batch in await Self.publish(batch, with: client, identity: identity) },
            clock: clock, backoff: backoff, random: random, batchSize: 20)
    }

    public enum CancelID {
        static let connectionEvents = EffectID("mqtt-connection-events")
        static let messages = EffectID("mqtt-messages")
        static let retry = EffectID("mqtt-retry")
        static let grace = EffectID("mqtt-fault-grace")
        static let statePublishing = EffectID("mqtt-state-publishing")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.isRunning else { return .none }
            state.isRunning = true
            return .merge(listen(), connect(&state))

        case .stop:
            guard state.isRunning else { return .none }
            let wasConnected = state.connection == .connected
            state.isRunning = false
            state.connection = .stopped
            state.nextRetry = nil
            state.retryDelay = nil
            state.publishedState = nil
            state.statePublishesInFlight = 0
            return .merge(
                .cancel(id: CancelID.retry), .cancel(id: CancelID.grace), .cancel(id: CancelID.statePublishing),
                reduceEvents(&state, .stop),
                .run { [client, clock, identity = state.identity] send in
                    // Said before leaving (a clean disconnect sends no last will), but a broker that
                    // does not answer must not hold up the shutdown: the disconnect ends the wait.
                    await withTaskGroup(of: Void.self) { group in
                        if wasConnected {
                            group.addTask {
                                _ = await client.publish(MQTTMessage(topic: identity.availabilityTopic, payload: MQTTIdentity.offline,
                                                                     retain: true))
                            }
                            group.addTask { try? await clock.sleep(Self.goodbyeWait) }
                            await group.next()
                            group.cancelAll()
                        }
                        await client.disconnect()
                    }
                    await send(.stopped)
                })

        case .stopped:
            return .merge(.cancel(id: CancelID.connectionEvents), .cancel(id: CancelID.messages))

        case .connection(.connected):
            guard state.isRunning else { return .none }
            state.connection = .connected
            state.consecutiveFailures = 0
            state.lastFailure = nil
            state.unavailableSince = nil
            state.outageIsFault = false
            state.nextRetry = nil
            state.retryDelay = nil
            state.subscriptionProblem = nil
            state.lastConnected = clock.now().wall
            state.publishedState = state.device
            state.statePublishesInFlight = 1
            return .merge(.cancel(id: CancelID.grace), announceAndSubscribe(state))

        case let .connection(.connectFailed(failure)), let .connection(.connectionLost(failure)):
            guard state.isRunning else { return .none }
            return fail(failure, &state)

        case .retryDue, .networkChanged:
            guard state.isRunning, state.connection == .waitingToRetry else { return .none }
            return .merge(.cancel(id: CancelID.retry), connect(&state))

        case .faultGraceEnded:
            guard state.isUnavailable, state.isOnlyWayToReachAnyone else { return .none }
            state.outageIsFault = true
            return .none

        case let .announced(failure):
            // A dropped connection says so on its own; a refusal here means commands cannot arrive.
            guard state.connection == .connected else { return .none }
            if let failure, failure.kind == .rejected { state.subscriptionProblem = failure.message }
            // Events follow the announcement: Home Assistant knows the entities they are for.
            return .merge(reduceEvents(&state, .start), statePublishEnded(&state))

        case .statePublished:
            guard state.connection == .connected else { return .none }
            return statePublishEnded(&state)

        case let .message(message):
            return receive(message, &state)

        case let .peerTopicsChanged(topics):
            let new = topics.filter { !state.peerTopics.contains($0) }
            state.peerTopics = topics
            guard state.connection == .connected, !new.isEmpty else { return .none }
            return .run { [client] send in
                if case let .failure(failure) = await client.subscribe(new) { await send(.peersSubscribed(failure)) } else {
                    await send(.peersSubscribed(nil))
                }
            }

        case let .peersSubscribed(failure):
            state.peerSubscriptionProblem = failure?.message
            return .none

        case let .refusedWatchersChanged(ids):
            state.refusedWatchers = ids
            return .none

        case let .deviceChanged(device):
            let previous = state.device
            state.device = device
            var effects: [Effect<Action>] = []
            if let previous, previous.phase == "checked_in" || previous.phase == "reminder", device.overdue {
                effects.append(.send(.eventOccurred(.overdue(deadline: previous.nextDeadline ?? device.nextDeadline,
                                                             at: clock.now().wall))))
            }
            effects.append(publishStateIfChanged(&state))
            return .merge(effects)

        case let .eventOccurred(event):
            let id = newID()
            let deviceEvent = DeviceEvent(id: id, entity: event.entity, payload: event.payload(id: id), at: event.at)
            return .run { [store] send in
                await send(.eventStored(await Result { () async throws(StoreFailure) in
                    try await store.append(deviceEvent)
                    return deviceEvent
                }))
            }

        case .eventStored(.success):
            return reduceEvents(&state, .itemStored)

        case let .eventStored(.failure(failure)):
            return .send(.delegate(.eventNotStored(failure)))

        case let .events(action):
            return reduceEvents(&state, action)

        case .delegate:
            return .none
        }
    }

    // MARK: Connecting

    private func listen() -> Effect<Action> {
        .merge(
            .run { [client] send in
                for await event in client.connectionEvents() { await send(.connection(event)) }
            }
            .cancellable(id: CancelID.connectionEvents),
            .run { [client] send in
                for await message in client.messages() { await send(.message(message)) }
            }
            .cancellable(id: CancelID.messages))
    }

    private func connect(_ state: inout State) -> Effect<Action> {
        state.connection = .connecting
        state.nextRetry = nil
        state.retryDelay = nil
        let will = MQTTMessage(topic: state.identity.availabilityTopic, payload: MQTTIdentity.offline, retain: true)
        return .run { [client] _ in await client.connect(MQTTConnectOptions(will: will)) }
    }

    private func fail(_ failure: MQTTFailure, _ state: inout State) -> Effect<Action> {
        let firstFailure = state.unavailableSince == nil
        state.connection = .waitingToRetry
        state.consecutiveFailures += 1
        state.lastFailure = failure
        state.publishedState = nil
        state.statePublishesInFlight = 0
        let now = clock.now().wall
        if firstFailure { state.unavailableSince = now }
        let delay = backoff.delay(afterFailures: state.consecutiveFailures, random: random)
        state.nextRetry = now + delay
        state.retryDelay = delay
        return .merge(
            reduceEvents(&state, .stop),
            .cancel(id: CancelID.statePublishing),
            .run { [clock] send in
                do {
                    try await clock.sleep(delay)
                    await send(.retryDue)
                } catch {}  // cancelled: the network came back, or stopping
            }
            .cancellable(id: CancelID.retry, cancelInFlight: true),
            firstFailure && state.isOnlyWayToReachAnyone
                ? .run { [clock] send in
                    do {
                        try await clock.sleep(Self.faultGrace)
                        await send(.faultGraceEnded)
                    } catch {}  // cancelled: connected again, or stopping
                }
                .cancellable(id: CancelID.grace, cancelInFlight: true)
                : .none)
    }

    // MARK: Publishing

    /// What a new connection starts with, in order: discovery, the state and `online` (Home
    /// Assistant's view of the device), then the subscriptions (the commands, Home Assistant's
    /// status).
    private func announceAndSubscribe(_ state: State) -> Effect<Action> {
        let identity = state.identity
        let peers = state.peerTopics
        let messages = announcement(state) + [MQTTMessage(topic: identity.availabilityTopic, payload: MQTTIdentity.online, retain: true)]
        return .run { [client] send in
            for message in messages {
                if case let .failure(failure) = await client.publish(message) { return await send(.announced(failure)) }
            }
            let subscribed = await client.subscribe([identity.commandFilter, identity.watchersFilter, identity.homeAssistantStatusTopic]
                                                   + peers)
            if case let .failure(failure) = subscribed { await send(.announced(failure)) } else { await send(.announced(nil)) }
        }
        .cancellable(id: CancelID.statePublishing)
    }

    /// Discovery, and the state where it is known (both retained).
    private func announcement(_ state: State) -> [MQTTMessage] {
        let identity = state.identity
        var messages = [MQTTMessage(topic: identity.discoveryTopic, payload: MQTTDiscovery.payload(identity).text, retain: true)]
        if let device = state.device {
            messages.append(MQTTMessage(topic: identity.stateTopic, payload: device.json.text, retain: true))
        }
        return messages
    }

    /// A message carrying the state is done: a change that waited for it goes out now.
    private func statePublishEnded(_ state: inout State) -> Effect<Action> {
        state.statePublishesInFlight = max(0, state.statePublishesInFlight - 1)
        return publishStateIfChanged(&state)
    }

    /// The device's state, once no other state message is on its way: two in flight at once can
    /// reach the broker in either order, and what it retains must be the newest. Whatever changed
    /// meanwhile goes out when the one in flight is done (`.statePublished`, `.announced`).
    private func publishStateIfChanged(_ state: inout State) -> Effect<Action> {
        guard state.connection == .connected, state.statePublishesInFlight == 0, let device = state.device,
              state.publishedState != device else { return .none }
        state.publishedState = device
        state.statePublishesInFlight = 1
        return .run { [client, identity = state.identity] send in
            // A failure is the connection's: its event says so, and the next one announces again.
            _ = await client.publish(MQTTMessage(topic: identity.stateTopic, payload: device.json.text, retain: true))
            await send(.statePublished)
        }
        .cancellable(id: CancelID.statePublishing)
    }

    /// One batch of events, in order, each acknowledged by the broker before the next is sent; the
    /// ones acknowledged before a failure count as delivered.
    static func publish(_ batch: [DeviceEvent], with client: MQTTClient, identity: MQTTIdentity)
        async -> Result<UploadOutcome, UplinkFailure> {
        var acknowledged: [CheckInID] = []
        for event in batch {
            let message = MQTTMessage(topic: identity.eventTopic(event.entity), payload: event.payload, retain: false)
            switch await client.publish(message) {
            case .success:
                acknowledged.append(event.id)
            case let .failure(failure):
                guard acknowledged.isEmpty else { return .success(UploadOutcome(acknowledged: acknowledged)) }
                return .failure(UplinkFailure(.transient, failure.message))
            }
        }
        return .success(UploadOutcome(acknowledged: acknowledged))
    }

    private func reduceEvents(_ state: inout State, _ action: UploadFeature<DeviceEvent>.Action) -> Effect<Action> {
        events.reduce(into: &state.events, action: action).namespaced("mqtt-events").map(Action.events)
    }

    // MARK: Messages

    private func receive(_ message: MQTTInboundMessage, _ state: inout State) -> Effect<Action> {
        let identity = state.identity
        if message.topic == identity.homeAssistantStatusTopic {
            guard message.text == MQTTIdentity.online, state.connection == .connected else { return .none }
            let messages = announcement(state)
            state.publishedState = state.device
            state.statePublishesInFlight += 1
            return .run { [client] send in
                // A failure is the connection's: its event says so, and the next one announces again.
                for message in messages where await client.publish(message).isFailure { break }
                await send(.statePublished)
            }
            .cancellable(id: CancelID.statePublishing)
        }
        if state.peerTopics.contains(message.topic) {
            return .send(.delegate(.peerMessage(message)))
        }
        if WatcherWire.watcherID(inTopic: message.topic, base: identity.baseTopic) != nil {
            return .send(.delegate(.watcherMessage(message)))
        }
        let prefix = identity.baseTopic + "/cmd/"
        guard message.topic.hasPrefix(prefix) else { return .none }
        let name = String(message.topic.dropFirst(prefix.count))
        switch command(name, message, &state) {
        case let .success(command):
            state.commandsAccepted += 1
            switch command {
            case .askIfOK: return .send(.delegate(.askIfOK))
            case .identify: return .send(.delegate(.identify))
            case .checkIn:
                state.lastRemoteCheckIn = clock.uptime()
                return .send(.delegate(.checkIn))
            case .away:
                // `command` refused any payload that is not a duration.
                guard let duration = message.text.flatMap(DurationText.parse) else { return .none }
                return .send(.delegate(.away(duration)))
            case .awayEnd: return .send(.delegate(.awayEnd))
            case .clearPing: return .send(.delegate(.clearPing))
            case .onIt:
                // `command` refused any payload that is not a name or a watcher's word with one.
                guard let name = Self.onItName(message) else { return .none }
                return .send(.delegate(.onIt(name)))
            }
        case let .failure(refusal):
            state.commandsRefused += 1
            state.lastRefusal = refusal.message
            return .none
        }
    }

    /// A command is one of the known names, sent just now (not replayed from the broker's retained
    /// store), with "PRESS" or nothing as its payload; `check_in` only where allowed, and not again
    /// within `remoteCheckInSpacing`.
    private func command(_ name: String, _ message: MQTTInboundMessage, _ state: inout State) -> Result<MQTTCommand, CommandRefusal> {
        let shown = TerminalText.quoted(String(name.prefix(64)))
        guard let command = MQTTCommand(rawValue: name) else {
            return .failure(CommandRefusal("unknown command \(shown) on \(TerminalText.quoted(String(message.topic.prefix(200)))); "
                                           + "commands are " + MQTTCommand.allCases.map(\.rawValue).joined(separator: ", ")))
        }
        guard !message.retained else {
            return .failure(CommandRefusal("\(name) was a retained message, kept by the broker from earlier: a command "
                                           + "must be published now and without retain"))
        }
        guard message.size <= Self.largestCommand else {
            return .failure(CommandRefusal("\(name) refused: its payload is \(message.size) bytes; a command's is \"PRESS\" or empty"))
        }
        if command == .away {
            return awayCommand(message)
        }
        if command == .askIfOK || command == .clearPing || command == .onIt {
            switch WatcherWire.sender(message.payload) {
            case let .failure(problem):
                return .failure(CommandRefusal("\(name) refused: \(problem.message)"))
            case let .success(sender?):
                if state.refusedWatchers.contains(sender.watcher) {
                    return .failure(CommandRefusal("\(name) refused: the watcher \(sender.watcher)"
                                                   + (sender.name.map { " (\(TerminalText.quoted($0)))" } ?? "")
                                                   + " was removed from this device's responders; `lifesignalctl responders allow` "
                                                   + "lets it back"))
                }
                if command == .onIt, sender.name == nil {
                    return .failure(CommandRefusal("on_it refused: a watcher's on_it carries its name"))
                }
                return .success(command)
            case .success(nil):
                break
            }
        }
        if command == .onIt {
            guard let name = message.text, WatcherWire.isValidName(name) else {
                return .failure(CommandRefusal("on_it refused: the payload must be the watcher's name (1 to 64 bytes of text), not "
                                               + (message.text.map { TerminalText.quoted(String($0.prefix(64))) } ?? "binary data")))
            }
            return .success(.onIt)
        }
        guard let text = message.text, text.isEmpty || text == MQTTCommand.press else {
            return .failure(CommandRefusal("\(name) refused: the payload must be \"PRESS\" or empty, not "
                                           + (message.text.map { TerminalText.quoted(String($0.prefix(64))) } ?? "binary data")))
        }
        if command == .checkIn {
            guard state.identity.remoteCheckIn else {
                return .failure(CommandRefusal("check_in refused: remote check-in is off ([mqtt] remote_check_in = false)"))
            }
            if let last = state.lastRemoteCheckIn, clock.uptime() - last < Self.remoteCheckInSpacing {
                return .failure(CommandRefusal("check_in refused: the last remote check-in was less than "
                                               + "\(DurationText.format(Self.remoteCheckInSpacing)) ago"))
            }
        }
        return .success(command)
    }

    /// The name in an accepted `on_it`: a watcher's word's, or the plain payload.
    static func onItName(_ message: MQTTInboundMessage) -> String? {
        if case let .success(sender?) = WatcherWire.sender(message.payload) { return sender.name }
        return message.text
    }

    /// `away` carries how long: a duration as `lifesignalctl away --until` takes one (`3d`, `12h`),
    /// up to `longestAway`; only with `[mqtt] remote_away`, since it silences the device.
    private func awayCommand(_ message: MQTTInboundMessage) -> Result<MQTTCommand, CommandRefusal> {
        guard identity.remoteAway else {
            return .failure(CommandRefusal("away refused: remote away mode is off ([mqtt] remote_away = false)"))
        }
        guard let text = message.text, let duration = DurationText.parse(text), duration > .zero, duration <= longestAway else {
            return .failure(CommandRefusal("away refused: the payload must be how long, from 1s to "
                                           + "\(DurationText.format(longestAway)) (e.g. 3d or 12h), not "
                                           + (message.text.map { TerminalText.quoted(String($0.prefix(64))) } ?? "binary data")))
        }
        return .success(.away)
    }
}

/// Why a command was not carried out, for the log and status.
struct CommandRefusal: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}

extension ActionCase where Parent == MQTTFeature.Action, Child == UploadFeature<DeviceEvent>.Action {
    static let events = ActionCase(embed: Parent.events, extract: { if case let .events(action) = $0 { action } else { nil } })
}

extension Result {
    var isFailure: Bool { if case .failure = self { true } else { false } }
}
