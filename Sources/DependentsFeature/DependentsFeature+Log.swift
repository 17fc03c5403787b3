public import ComposableCore
import CheckInModels

extension DependentsFeature {
    /// What the person who looks after the watcher reads in its log: each dependent's status when
    /// it changes, what was done, and what failed.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        var entries: [LogEntry] = []
        for dependent in after.dependents {
            guard let previous = before.dependent(named: dependent.entry.name), previous.status != dependent.status else { continue }
            let level: LogEntry.Level = dependent.status.needsSomeone ? .warning : .notice
            entries.append(LogEntry(level, "dependent \(TerminalText.quoted(dependent.entry.name)): \(dependent.status.rawValue) "
                                    + "(was \(previous.status.rawValue))"))
        }
        if let error = after.error, error != before.error {
            entries.append(LogEntry(.warning, "dependents: \(TerminalText.escaped(error))"))
        }
        if let outcome = after.lastOutcome, outcome != before.lastOutcome || isOutcome(action) {
            entries.append(LogEntry(.notice, "dependents: \(TerminalText.escaped(outcome))"))
        }
        for (kind, failure) in after.sourceFailures where before.sourceFailures[kind] != failure {
            entries.append(LogEntry(.warning, "dependents: \(sourceName(kind)) cannot be asked: \(TerminalText.escaped(failure))"))
        }
        return entries
    }

    /// Actions whose outcome is worth a line even when it reads as the last one did (a second ping).
    private static func isOutcome(_ action: Action) -> Bool {
        switch action {
        case .pingSent(_, nil), .pingCleared(_, nil), .onItSent(_, nil), .added(_, nil), .removed(_, nil): true
        default: false
        }
    }
}
