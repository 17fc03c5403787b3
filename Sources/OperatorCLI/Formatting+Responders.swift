import ControlProtocol

extension Formatting {
    /// The list: one line per responder with the path that reaches them, then the reach line.
    static func responders(_ report: RespondersReport) -> String {
        var lines: [String] = []
        if let message = report.message { lines.append("Last change: \(message).") }
        if report.responders.isEmpty {
            lines.append("No responder is listed. Pair a watcher device (`lifesignalctl pair` here, then `lifesignalctl dependents "
                         + "add CODE` on it), add people in the LifeSignal app, or add integrations to the healthchecks project.")
        }
        let width = report.responders.map(\.name.count).max() ?? 0
        for item in report.responders {
            let name = item.name + String(repeating: " ", count: max(0, width - item.name.count))
            lines.append("\(name)  \(item.path) — told of \(toldWords(item.told))"
                         + (item.notReachableNow.map { " (NOT reachable now: \($0))" } ?? ""))
        }
        for removed in report.removed {
            lines.append("Removed: \(removed.name) (watcher \(removed.id)), since \(localTime(removed.removedAt)); its pings are "
                         + "refused (`lifesignalctl responders allow \(removed.name)` lets it back)")
        }
        for problem in report.sourceProblems { lines.append("Cannot read the list of \(problem)") }
        if report.stale { lines.append("Not every source answered in time: the list may be older than this request.") }
        if let error = report.error { lines.append("Error: \(error) (lifesignalctl dismiss-error clears it)") }
        lines.append(report.reach)
        return lines.joined(separator: "\n")
    }

    /// One responder, every field people need.
    static func responderDetails(_ item: ResponderItemReport) -> String {
        var lines = ["\(item.name): \(item.role)"]
        lines.append("  path: \(item.path)")
        lines.append("  told of: \(toldWords(item.told))")
        lines.append("  \(item.source) id: \(item.id)")
        if !item.channels.isEmpty { lines.append("  reached by: \(item.channels.joined(separator: ", "))") }
        if let since = item.since { lines.append("  confirmed: \(localTime(since))") }
        if let why = item.notReachableNow { lines.append("  NOT reachable now: \(why)") }
        return lines.joined(separator: "\n")
    }

    private static func toldWords(_ told: [String]) -> String {
        let words = told.map { $0 == "missed_check_in" ? "a missed check-in" : $0 == "help_alert" ? "a help alert" : $0 }
        return words.isEmpty ? "nothing" : words.joined(separator: " and ")
    }
}
