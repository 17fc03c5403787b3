public import ComposableCore
import CheckInModels

extension RespondersFeature {
    /// What the person who looks after the device reads in its log: who is told (once after the
    /// start, a warning when nobody is), who joined or left, what failed.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        var entries: [LogEntry] = []
        if after.reachAnnounced, !before.reachAnnounced {
            let reach = after.reach
            let nobody = reach.nobodyForMissedCheckIns || after.responders.isEmpty
            entries.append(LogEntry(nobody ? .warning : .notice, "responders: " + TerminalText.escaped(reach.line)
                                    + (after.responders.isEmpty ? " No responder is listed: pair a watcher (lifesignalctl pair) or add "
                                        + "people in the LifeSignal app or as healthchecks integrations." : "")))
        }
        if let message = after.message, message != before.message || isOutcome(action) {
            entries.append(LogEntry(.notice, "responders: \(TerminalText.escaped(message.text))"))
        }
        if let error = after.error, error != before.error {
            entries.append(LogEntry(.warning, "responders: \(TerminalText.escaped(error))"))
        }
        if let unread = after.unreadRegistration, unread != before.unreadRegistration {
            entries.append(LogEntry(.warning, "responders: a watcher registration was not read: \(TerminalText.escaped(unread))"))
        }
        for (kind, failure) in after.sourceFailures where before.sourceFailures[kind] != failure {
            entries.append(LogEntry(.warning, "responders: \(Reach.sourceName(kind))'s list cannot be read: "
                                    + TerminalText.escaped(failure)))
        }
        return entries
    }

    private static func isOutcome(_ action: Action) -> Bool {
        switch action {
        case .removed(_, nil), .allowed(_, nil): true
        default: false
        }
    }
}
