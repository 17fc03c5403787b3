import CheckInModels
import ComposableCore
import ControlProtocol
import DeviceClock
import DeviceFeature
import RespondersFeature

/// Answers `lifesignalctl responders …` on a person's device: asks the polled sources first (the
/// family wants today's list, not the last poll's), sends a removal or allowance and waits for
/// its outcome (or the error it sets), and answers with the list and the reach line.
@MainActor
final class RespondersControl {
    let store: Store<DeviceFeature>
    let waiters: ActionWaiters<DeviceFeature.Action>
    let clock: DeviceClock
    static let answerTimeout = Duration.seconds(12)

    init(store: Store<DeviceFeature>, waiters: ActionWaiters<DeviceFeature.Action>, clock: DeviceClock) {
        self.store = store
        self.waiters = waiters
        self.clock = clock
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        guard let responders = store.state.responders else {
            return .failure("this is a watcher ([device] role = \"watcher\"): nobody responds to it; `lifesignalctl dependents` "
                            + "shows the people it looks after")
        }
        switch request.command {
        case .responders:
            let refreshed = await waiters.wait(
                for: { if case .responders(.delegate(.refreshed)) = $0 { true } else { false } },
                timeout: Self.answerTimeout, sleep: clock.sleep, trigger: { store.send(.responders(.refresh)) })
            // The list as the refresh left it.
            if let name = request.name, let current = store.state.responders, current.responder(named: name) == nil {
                return .failure(current.unknownName(name))
            }
            return answer(stale: refreshed == nil)
        case .respondersRemove, .respondersAllow:
            guard let name = request.name, !name.isEmpty else { return .failure("\(request.command.rawValue) needs NAME") }
            let removing = request.command == .respondersRemove
            let action: RespondersFeature.Action = removing ? .remove(name: name) : .allow(name: name)
            // The watcher this request is about: another client's outcome is not this one's answer.
            let id = removing ? responders.responder(named: name).map(\.source.address) : responders.removedWatcher(named: name)?.id
            let outcome = await waiters.wait(
                for: {
                    switch $0 {
                    case .responders(.setError(.some)): true
                    case let .responders(.removed(watcher, nil)), let .responders(.allowed(watcher, nil)): watcher.id == id
                    default: false
                    }
                },
                timeout: Self.answerTimeout, sleep: clock.sleep, trigger: { store.send(.responders(action)) })
            switch outcome {
            case let .responders(.setError(message?))?:
                return .failure(message)
            case .some:
                return answer(stale: false)
            case nil:
                return .failure("no answer within \(DurationText.humane(Self.answerTimeout)); `lifesignalctl responders` shows "
                                + "whether it was done")
            }
        default:
            return .failure("not a responders request: \(request.command.rawValue)")
        }
    }

    private func answer(stale: Bool) -> ControlResponse {
        var response = ControlResponse()
        response.responders = store.state.responders.map { RespondersReport($0, stale: stale) }
        return response
    }
}

extension RespondersReport {
    init(_ state: RespondersFeature.State, stale: Bool = false) {
        let reach = state.reach
        self.init(
            responders: state.responders.map { ResponderItemReport($0, state) },
            removed: state.removedWatchers.map { RemovedWatcherReport(name: $0.name, id: $0.id, removedAt: $0.removedAt.iso8601) },
            reach: reach.line, nobodyForMissedCheckIns: reach.nobodyForMissedCheckIns, nobodyForHelpAlerts: reach.nobodyForHelpAlerts,
            sourceProblems: state.sourceFailures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" },
            message: state.message?.text, error: state.error, stale: stale)
    }
}

extension ResponderItemReport {
    /// One responder as the reach line counts them: no help alert while help alerts are off, and
    /// a watcher not reachable while the broker is away.
    init(_ responder: Responder, _ state: RespondersFeature.State) {
        let told = responder.told.filter { $0 != .helpAlert || state.paths.helpAlerts }
        self.init(name: responder.name, role: responder.role, source: responder.source.kind, id: responder.source.address,
                  kind: responder.kind, channels: responder.channels, told: told.sorted().map(\.rawValue),
                  path: Reach.path(of: responder), since: responder.since?.iso8601)
        if case .watcher = responder.source, !state.brokerConnected {
            notReachableNow = "the MQTT broker is not connected"
        }
    }
}
