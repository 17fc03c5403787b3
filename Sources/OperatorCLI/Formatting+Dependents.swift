import CheckInModels
import ControlProtocol

extension Formatting {
    /// The list: one line per dependent, loudest words first, then what was done or failed.
    static func dependents(_ report: DependentsReport) -> String {
        var lines: [String] = []
        if let outcome = report.outcome { lines.append("Done: \(outcome).") }
        if report.dependents.isEmpty {
            lines.append("Nobody to look after yet: on their device run `lifesignalctl pair`, then here "
                         + "`lifesignalctl dependents add CODE`.")
        }
        let width = report.dependents.map(\.name.count).max() ?? 0
        for item in report.dependents {
            let name = item.name + String(repeating: " ", count: max(0, width - item.name.count))
            lines.append("\(name)  \(statusWords(item.status))\(summary(item))")
        }
        if report.confirmingPingAll { lines.append("Everyone will be pinged in a moment; press the button again to cancel.") }
        for problem in report.sourceProblems { lines.append("Cannot ask \(problem)") }
        if let error = report.error { lines.append("Error: \(error) (lifesignalctl dismiss-error clears it)") }
        lines.append("Sorted by \(report.sort); pings and \"I'm on it\" are signed \(report.watcher).")
        return lines.joined(separator: "\n")
    }

    /// One dependent, every field people need.
    static func dependentDetails(_ item: DependentItemReport) -> String {
        var lines = ["\(item.name): \(statusWords(item.status))"]
        lines.append("  through \(item.source) (\(item.address))\(item.fromConfig ? ", in the config file" : ", added by code")")
        lines.append("  last check-in: \(item.lastCheckIn.map(localTime) ?? "not known")")
        lines.append("  deadline: \(item.deadline.map(localTime) ?? "not known")")
        lines.append("  last heard of: \(item.heardAt.map(localTime) ?? "not yet")"
                     + (item.online == false ? " (their device is offline)" : ""))
        lines.append("  silent after \(DurationText.format(.seconds(item.heartbeatSeconds))) without word")
        if let sent = item.pingSentAt { lines.append("  your ping: sent \(localTime(sent)), not answered yet") }
        if let answered = item.pingAnsweredAt { lines.append("  your ping: answered \(localTime(answered))") }
        if item.pingPending, item.pingSentAt == nil { lines.append("  a ping waits on their device") }
        if let onIt = item.onIt { lines.append("  \(onIt) is on the way") }
        if item.onItSent { lines.append("  you said you are on it") }
        if let problem = item.problem { lines.append("  problem: \(problem)") }
        return lines.joined(separator: "\n")
    }

    private static func statusWords(_ status: String) -> String {
        switch status {
        case "help_alert": "ASKED FOR HELP"
        case "overdue": "OVERDUE"
        case "silent": "silent (their device has gone quiet)"
        case "reminder": "due soon"
        case "unknown": "not heard of yet"
        case "away": "away"
        case "checked_in": "OK"
        default: status
        }
    }

    private static func summary(_ item: DependentItemReport) -> String {
        var parts: [String] = []
        if let last = item.lastCheckIn { parts.append("checked in \(localTime(last))") }
        if item.pingSentAt != nil { parts.append("pinged, waiting") }
        if let answered = item.pingAnsweredAt, item.pingSentAt == nil { parts.append("answered your ping \(localTime(answered))") }
        if let onIt = item.onIt { parts.append("\(onIt) is on the way") }
        if let problem = item.problem { parts.append("problem: \(problem)") }
        return parts.isEmpty ? "" : " — " + parts.joined(separator: "; ")
    }
}
