import CheckInModels
import ComposableCore
import ControlProtocol
import DependentsFeature
import DeviceClock
import DeviceFeature

/// Answers `lifesignalctl dependents …` on a watcher: sends the feature the operator's action,
/// waits for its outcome (or the error it sets), and answers with the list as it then is.
@MainActor
final class DependentsControl {
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
        guard let dependents = store.state.dependents else {
            return .failure("this is a person's device ([device] role = \"person\"): it looks after nobody; "
                            + "set role = \"watcher\" (or \"both\") under [device] in its config")
        }
        switch request.command {
        case .dependents:
            if let name = request.name, dependents.dependent(named: name) == nil {
                return .failure(dependents.unknownName(name))
            }
            return answer()
        case .dependentsAdd:
            guard let text = request.code, !text.isEmpty else {
                return .failure("dependents add needs the code that `lifesignalctl pair` printed on their device")
            }
            let code: PairingCode
            do {
                code = try PairingCode(parsing: text)
            } catch {
                return .failure(error.description)
            }
            if let name = request.name, let problem = Self.nameProblem(name) { return .failure(problem) }
            return await change(.add(code, name: request.name)) { if case .added(_, nil) = $0 { true } else { false } }
        case .dependentsRemove:
            guard let name = request.name else { return .failure("dependents remove needs NAME") }
            return await change(.remove(name: name)) { if case .removed(_, nil) = $0 { true } else { false } }
        case .dependentsPing, .dependentsClearPing, .dependentsOnIt:
            guard let name = request.name else { return .failure("\(request.command.rawValue) needs NAME") }
            guard dependents.dependent(named: name) != nil else { return .failure(dependents.unknownName(name)) }
            switch request.command {
            case .dependentsPing:
                return await change(.ping(name: name)) { if case .pingSent(_, nil) = $0 { true } else { false } }
            case .dependentsClearPing:
                return await change(.clearPing(name: name)) { if case .pingCleared(_, nil) = $0 { true } else { false } }
            default:
                return await change(.onIt(name: name)) { if case .onItSent(_, nil) = $0 { true } else { false } }
            }
        case .dependentsSort:
            guard let text = request.sort, let option = DependentsSortOption(rawValue: text.lowercased()) else {
                return .failure("sort by what? one of " + DependentsSortOption.allCases.map(\.rawValue).joined(separator: ", ")
                                + (request.sort.map { " (not \(TerminalText.quoted(String($0.prefix(40)))))" } ?? ""))
            }
            return await change(.setSortOption(option)) { if case .sortOptionSaved(nil) = $0 { true } else { false } }
        default:
            return .failure("not a dependents request: \(request.command.rawValue)")
        }
    }

    /// Sends `action` and waits for `succeeded`, or for the error the feature sets instead.
    private func change(_ action: DependentsFeature.Action, succeeded: @escaping (DependentsFeature.Action) -> Bool) async
        -> ControlResponse {
        let outcome = await waiters.wait(
            for: {
                guard case let .dependents(child) = $0 else { return false }
                if case .setError(.some) = child { return true }
                return succeeded(child)
            },
            timeout: Self.answerTimeout, sleep: clock.sleep,
            trigger: { store.send(.dependents(action)) })
        switch outcome {
        case let .dependents(.setError(message?))?:
            return .failure(message)
        case .some:
            return answer()
        case nil:
            return .failure("no answer within \(DurationText.humane(Self.answerTimeout)); `lifesignalctl dependents` shows "
                            + "whether it was done")
        }
    }

    private func answer() -> ControlResponse {
        var response = ControlResponse()
        response.dependents = store.state.dependents.map { DependentsReport($0, role: store.state.role) }
        return response
    }

    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "--name must not be empty" }
        if name.utf8.count > 64 { return "--name is \(name.utf8.count) bytes long; at most 64" }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "--name \(TerminalText.quoted(name)) contains control characters"
        }
        return nil
    }
}

extension DependentsReport {
    init(_ state: DependentsFeature.State, role: DeviceRole) {
        self.init(
            role: role.rawValue, watcher: state.watcherName, sort: state.sortOption.rawValue, loudest: state.loudest?.rawValue,
            dependents: state.sorted.map(DependentItemReport.init),
            confirmingPingAll: state.confirmingPingAll, outcome: state.lastOutcome, error: state.error,
            sourceProblems: state.sourceFailures.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" })
    }
}

extension DependentItemReport {
    init(_ dependent: Dependent) {
        self.init(
            name: dependent.entry.name, status: dependent.status.rawValue, source: dependent.entry.source.kind,
            address: dependent.entry.source.address, fromConfig: dependent.entry.fromConfig,
            heartbeatSeconds: dependent.entry.heartbeat.components.seconds,
            lastCheckIn: dependent.report?.lastCheckIn?.iso8601, deadline: dependent.report?.deadline?.iso8601,
            heardAt: dependent.heardAt?.iso8601, online: dependent.online, pingPending: dependent.report?.pingPending ?? false,
            pingSentAt: dependent.pingSentAt?.iso8601, pingAnsweredAt: dependent.pingAnsweredAt?.iso8601,
            onIt: dependent.report?.onIt, onItSent: dependent.onItSent, problem: dependent.shownProblem)
    }
}
