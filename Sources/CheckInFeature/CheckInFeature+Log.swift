public import ComposableCore
import CheckInModels

extension CheckInFeature {
    /// What is worth logging about the check-in countdown: one line per event a person would care
    /// about (the device feature logs conditions appearing and clearing).
    public static func log(_ action: Action, before: State, after: State) -> [LogEntry] {
        var entries: [LogEntry] = []
        if case let .delegate(delegate) = action { entries += log(delegate, after: after) }
        if after.alert.window != nil, before.alert.window == nil, let window = after.alert.settings?.cancelWindow {
            let when = DurationText.humane(window)
            entries.append(LogEntry(.notice, "help alert requested; it is sent in \(when) unless the button is pressed or `lifesignalctl alert cancel` runs"))
        }
        if case let .alert(.acknowledged(ids)) = action {
            entries.append(LogEntry(.notice, "help alert delivered: the backend acknowledged it", metadata: ["ids": "\(ids)"]))
        }
        if before.uploadBacklog.isStale != after.uploadBacklog.isStale {
            if after.uploadBacklog.isStale, let since = after.uploadBacklog.oldestPendingSince {
                entries.append(LogEntry(.warning, "check-ins have not reached the backend since \(since.wall.iso8601), longer than [uplink] stale_after: the LEDs show it"))
            } else {
                entries.append(LogEntry(.notice, "the check-ins waiting too long have reached the backend"))
            }
        }
        if case .wallClockChanged = action {
            entries.append(LogEntry(.info, "wall clock changed; the countdown runs on monotonic time and did not move"))
        }
        if before.phase.name != after.phase.name {
            var metadata: [String: String] = [:]
            if let countdown = after.phase.countdown {
                metadata["deadline"] = countdown.deadline.iso8601
                metadata["remaining"] = DurationText.humane(countdown.remaining)
            }
            entries.append(LogEntry(.info, "phase \(after.phase.name)", metadata: metadata))
        }
        return entries
    }

    private static func log(_ delegate: Action.Delegate, after: State) -> [LogEntry] {
        switch delegate {
        case let .checkInStored(record):
            return [LogEntry(.notice, "check-in stored", metadata: [
                "id": "\(record.id)", "source": record.source.rawValue, "time": record.at.wall.iso8601,
                "clock_synchronized": "\(record.at.wallClockSynchronized)",
            ])]
        case let .checkInFailed(failure):
            return [LogEntry(.error, "check-in NOT stored: \(failure.message)", metadata: ["kind": failure.kind.rawValue])]
        case let .loadFailed(failure):
            return [LogEntry(.error, "the check-in store could not be read: \(failure.message)", metadata: ["kind": failure.kind.rawValue])]
        case let .storedSettingsRefused(problem):
            return [LogEntry(.warning, "stored settings are not allowed here (used anyway): \(problem.message)")]
        case let .settingsSaved(stored):
            return [LogEntry(.notice, "settings saved: \(stored.settings)", metadata: ["version": "\(stored.version)"])]
        case let .settingsRejected(problem):
            return [LogEntry(.warning, "settings refused: \(problem.message)")]
        case let .settingsNotSaved(failure):
            return [LogEntry(.error, "settings apply now but were NOT saved (saved again once the store can write): \(failure.message)")]
        case .longPressed:
            return [LogEntry(.notice, after.alert.settings == nil ? "long press (alerts are off: [alert] enabled = false)" : "long press")]
        case let .pingsAnswered(responses):
            return [LogEntry(.notice, "answered \(responses.count) ping\(responses.count == 1 ? "" : "s") with the check-in",
                             metadata: ["pings": responses.map(\.pingID).joined(separator: ",")])]
        case let .alertCancelled(source):
            return [LogEntry(.notice, "help alert cancelled in its cancel window; nothing was sent", metadata: ["by": source.rawValue])]
        case let .alertStored(record):
            return [LogEntry(.notice, "help alert stored; sending it", metadata: [
                "id": "\(record.id)", "source": record.source.rawValue, "time": record.at.wall.iso8601,
            ])]
        case let .alertNotStored(failure):
            return [LogEntry(.critical, "help alert NOT stored and NOT sent yet (stored again once the store can write): \(failure.message)")]
        case let .awayStarted(period):
            return [LogEntry(.notice, "away until \(period.until.iso8601): no reminder and no overdue until then", metadata: [
                "id": "\(period.id)", "source": period.source.rawValue, "for": DurationText.humane(period.duration),
            ])]
        case let .awayEnded(period):
            return [LogEntry(.notice, "away ended (\(period.ended?.reason.rawValue ?? "ended")): a fresh countdown starts now",
                             metadata: ["id": "\(period.id)"])]
        case let .awayRefused(problem):
            return [LogEntry(.warning, "away mode not changed: \(problem.message)")]
        case let .awayNotSaved(failure):
            return [LogEntry(.error, "away mode NOT changed: it could not be stored: \(failure.message)")]
        }
    }
}
