public import ComposableCore
import CheckInModels
import UploadFeature

extension MQTTFeature {
    /// What an action did that the operator should read in the log.
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        switch action {
        case .connection(.connected) where after.connection == .connected:
            let again = before.consecutiveFailures > 0 ? " again" : ""
            return [LogEntry(.notice, "connected to \(after.broker)\(again): Home Assistant discovery on "
                             + "\(after.identity.discoveryTopic), state on \(after.identity.stateTopic)")]
        case .connection(.connectFailed), .connection(.connectionLost):
            guard after.consecutiveFailures > before.consecutiveFailures, let failure = after.lastFailure else { return [] }
            let delay = DurationText.format(after.retryDelay ?? .zero)
            let wasConnected = before.connection == .connected
            return [LogEntry(wasConnected ? .warning : .info,
                             "\(wasConnected ? "lost the MQTT connection" : "MQTT broker not reached"): \(failure.message); "
                                 + "trying again in \(delay)",
                             metadata: ["failures": "\(after.consecutiveFailures)"])]
        case .announced where after.subscriptionProblem != nil && after.subscriptionProblem != before.subscriptionProblem:
            return [LogEntry(.error, "commands from MQTT cannot arrive: \(after.subscriptionProblem ?? "")")]
        case .peersSubscribed where after.peerSubscriptionProblem != nil:
            return [LogEntry(.error, "the dependents' MQTT topics cannot be heard: \(after.peerSubscriptionProblem ?? "")")]
        case .message where after.commandsRefused > before.commandsRefused:
            return [LogEntry(.warning, "MQTT command refused: \(after.lastRefusal ?? "no reason given")")]
        case let .delegate(delegate):
            switch delegate {
            case .askIfOK: return [LogEntry(.notice, "MQTT command: ask if OK (a ping shows on the LEDs until a press answers it)")]
            case .identify: return [LogEntry(.info, "MQTT command: identify (the LEDs show where the device is)")]
            case .checkIn: return [LogEntry(.notice, "MQTT command: check in (recorded with source mqtt)")]
            case let .away(duration):
                return [LogEntry(.notice, "MQTT command: away for \(DurationText.format(duration)) (no reminder and no overdue until it ends)")]
            case .awayEnd: return [LogEntry(.notice, "MQTT command: end away mode")]
            case .clearPing: return [LogEntry(.notice, "MQTT command: clear ping (a watcher withdrew its \"are you OK?\")")]
            case let .onIt(name):
                return [LogEntry(.notice, "MQTT command: \(TerminalText.quoted(name)) is on the way (shown until the next check-in)")]
            case .peerMessage, .watcherMessage: return []
            case let .eventNotStored(failure):
                return [LogEntry(.error, "an event for the MQTT broker was NOT stored: \(failure.message)")]
            }
        case let .events(action):
            return UploadFeature.log(action, before: before.events, after: after.events)
        default:
            return []
        }
    }
}
