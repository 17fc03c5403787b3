import CheckInFeature
import CheckInModels
import Logging

/// Turns what the feature did into one log line per event a person would care about.
struct FeatureLog {
    let logger: Logger

    func record(before: CheckInFeature.State, after: CheckInFeature.State, action: CheckInFeature.Action) {
        if case let .delegate(delegate) = action {
            switch delegate {
            case let .checkInStored(record):
                logger.notice("check-in stored", metadata: [
                    "id": "\(record.id)", "source": "\(record.source.rawValue)", "time": "\(record.at.wall.iso8601)",
                    "clock_synchronized": "\(record.at.wallClockSynchronized)",
                ])
            case let .checkInFailed(failure):
                logger.error("check-in NOT stored: \(failure.message)", metadata: ["kind": "\(failure.kind.rawValue)"])
            case let .settingsSaved(stored):
                logger.notice("settings saved: \(stored.settings)", metadata: ["version": "\(stored.version)"])
            case let .settingsRejected(problem):
                logger.warning("settings refused: \(problem.message)")
            case let .settingsNotSaved(failure):
                logger.error("settings NOT saved: \(failure.message)")
            case .longPressed:
                logger.notice(after.alert.settings == nil ? "long press (alerts are off: [alert] enabled = false)" : "long press")
            case let .pingsAnswered(responses):
                logger.notice("answered \(responses.count) ping\(responses.count == 1 ? "" : "s") with the check-in",
                              metadata: ["pings": "\(responses.map(\.pingID).joined(separator: ","))"])
            case let .alertCancelled(source):
                logger.notice("help alert cancelled in its cancel window; nothing was sent", metadata: ["by": "\(source.rawValue)"])
            case let .alertStored(record):
                logger.notice("help alert stored; sending it", metadata: [
                    "id": "\(record.id)", "source": "\(record.source.rawValue)", "time": "\(record.at.wall.iso8601)",
                ])
            case let .alertNotStored(failure):
                logger.critical("help alert NOT stored and NOT sent: \(failure.message)")
            }
        }
        if after.alert.window != nil, before.alert.window == nil, let window = after.alert.settings?.cancelWindow {
            let when = DurationText.format(window)
            logger.notice("help alert requested; it is sent in \(when) unless the button is pressed or `lifesignalctl alert cancel` runs")
        }
        if case let .alert(.acknowledged(ids)) = action {
            logger.notice("help alert delivered: the backend acknowledged it", metadata: ["ids": "\(ids)"])
        }
        if before.uploadBacklog.isStale != after.uploadBacklog.isStale {
            if after.uploadBacklog.isStale, let since = after.uploadBacklog.oldestPendingSince {
                let time = since.wall.iso8601
                logger.warning("check-ins have not reached the backend since \(time), longer than [uplink] stale_after: the LEDs show it")
            } else {
                logger.notice("the check-ins waiting too long have reached the backend")
            }
        }
        if case .wallClockChanged = action {
            logger.info("wall clock changed; the countdown runs on monotonic time and did not move")
        }
        if before.elapsedTimeUnknown != after.elapsedTimeUnknown {
            if after.elapsedTimeUnknown {
                logger.warning("time since the last check-in is unknown (it was on an earlier boot and the wall clock is not synchronised): showing reminder until the clock is synchronised or a check-in")
            } else {
                logger.notice("time since the last check-in is known again")
            }
        }
        if before.phase.name != after.phase.name {
            var metadata: Logger.Metadata = [:]
            if let countdown = after.phase.countdown {
                metadata["deadline"] = "\(countdown.deadline.iso8601)"
                metadata["remaining"] = "\(DurationText.humane(countdown.remaining))"
            }
            logger.info("phase \(after.phase.name)", metadata: metadata)
        }
        if let error = after.error, error != before.error {
            logger.error("\(error.message)", metadata: ["kind": "\(error.kind.rawValue)"])
        }
        if before.indicator != after.indicator {
            logger.debug("LEDs show \(after.indicator.rawValue)")
        }
    }
}
