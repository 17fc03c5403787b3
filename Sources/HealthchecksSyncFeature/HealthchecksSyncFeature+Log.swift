public import ComposableCore
import CheckInModels
import UplinkClient

extension HealthchecksSyncFeature {
    /// What the operator should read in the log: what a sync changed, and why one failed (a
    /// refusal as an error: nothing keeps the checks in step until it is fixed).
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        guard case let .syncResponse(result) = action, before.isSyncing else { return [] }
        switch result {
        case let .success(checks):
            let changed = checks.filter { $0.change != .unchanged }
            guard !changed.isEmpty || before.consecutiveFailures > 0 else { return [] }
            let text = checks.map { check in
                "\(check.slug) \(check.change.rawValue) (timeout \(DurationText.humane(check.timeout)), "
                    + "grace \(DurationText.humane(check.grace)), \(check.status))"
            }.joined(separator: "; ")
            return [LogEntry(.notice, "healthchecks checks in step with the settings at \(after.endpoint): \(text)")]
        case let .failure(failure):
            switch after.status {
            case .refused:
                return [LogEntry(.error, "healthchecks checks NOT set up or kept in step (not retrying until the settings change "
                                 + "or a restart): \(failure.message)")]
            case .waitingToRetry:
                return [LogEntry(.warning, "healthchecks checks not in step yet, retrying: \(failure.message)",
                                 metadata: ["failures": "\(after.consecutiveFailures)"])]
            case .idle, .syncing:
                return []
            }
        }
    }
}
