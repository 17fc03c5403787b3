public import CheckInModels
import JSONCoding

/// What a person's device publishes on `<base>/state` (docs/mqtt.md), as far as a watcher reads it.
/// Fields the watcher does not need are ignored; a field it needs that is missing or of the wrong
/// kind makes the whole message unreadable, never a guess.
struct PeerState: Decodable, Equatable {
    var phase: String
    var overdue: Bool
    var helpAlert: Bool
    var pingPending: Bool
    var away: Bool
    var lastCheckIn: String?
    var nextDeadline: String?
    var onIt: String?

    enum CodingKeys: String, CodingKey {
        case phase, overdue, away
        case helpAlert = "help_alert"
        case pingPending = "ping_pending"
        case lastCheckIn = "last_check_in"
        case nextDeadline = "next_deadline"
        case onIt = "on_it"
    }
}

extension PeerState {
    /// The report a watcher shows for this state, or why it cannot be trusted.
    static func report(from payload: [UInt8]) -> Result<DependentReport, PeerStateProblem> {
        let state: PeerState
        do {
            state = try JSON.decode(PeerState.self, from: payload)
        } catch {
            return .failure(PeerStateProblem("its state is not what a LifeSignal device publishes: \(JSON.readableReason(error))"))
        }
        guard let status = state.status else {
            return .failure(PeerStateProblem("its state has an unknown phase \(TerminalText.quoted(String(state.phase.prefix(40))))"))
        }
        var times: [WallTime?] = []
        for text in [state.lastCheckIn, state.nextDeadline] {
            guard let text else {
                times.append(nil)
                continue
            }
            guard let time = WallTime(iso8601: text) else {
                return .failure(PeerStateProblem("its state has a time that is not RFC 3339: \(TerminalText.quoted(String(text.prefix(40))))"))
            }
            times.append(time)
        }
        return .success(DependentReport(status: status, lastCheckIn: times[0], deadline: times[1], pingPending: state.pingPending,
                                        onIt: state.onIt.map { String($0.prefix(64)) }))
    }

    /// Help first, then overdue: a device both asking for help and overdue needs someone either way.
    /// The grace after the deadline (`last_chance`) is still a reminder: the person's own device has
    /// not told anyone yet.
    var status: DependentStatus? {
        if helpAlert { return .helpAlert }
        if overdue || phase == "overdue" { return .overdue }
        switch phase {
        case "away": return .away
        case "reminder", "last_chance": return .reminder
        case "checked_in": return away ? .away : .checkedIn
        case "starting", "never_checked_in": return .unknown
        default: return nil
        }
    }
}

struct PeerStateProblem: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
