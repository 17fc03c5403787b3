public import ComposableCore
import CheckInModels

extension UploadFeature {
    /// What an action did that the operator should read in the log.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        var entries: [LogEntry] = []
        if case .networkChanged = action, before.status == .waitingToRetry, after.status != .waitingToRetry {
            entries.append(LogEntry(.info, "network changed: retrying the \(after.noun) upload now instead of at the end of the backoff"))
        }
        if case .answerRecorded(.success) = action, case let .recording(answer) = before.step {
            for item in answer.refused {
                entries.append(LogEntry(.error, "\(after.endpoint) refused \(item.id) for good; it leaves the \(after.noun) "
                                        + "upload queue (`lifesignalctl queue` lists it): \(item.message)"))
            }
            entries.append(LogEntry(.info, "uploaded \(after.noun)", metadata: [
                "sent": "\(answer.sent)", "acknowledged": "\(answer.acknowledged.count)", "endpoint": after.endpoint,
            ]))
        }
        if after.consecutiveFailures > before.consecutiveFailures, let message = after.lastMessage {
            switch after.lastResult {
            case .transientFailure:
                let delay = DurationText.humane(after.retryDelay ?? .zero)
                entries.append(LogEntry(.warning, "\(after.noun) upload failed, retrying in \(delay): \(message)",
                                        metadata: ["failures": "\(after.consecutiveFailures)"]))
            case .permanentFailure:
                entries.append(LogEntry(.error, "\(after.noun) upload refused, not retrying until the next one is stored "
                                        + "or a restart; the \(after.noun) stay queued: \(message)"))
            case .ok, nil:
                break
            }
        }
        return entries
    }
}
