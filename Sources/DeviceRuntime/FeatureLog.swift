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
                logger.notice("long press (no action is assigned to it yet)")
            case let .pingsAnswered(responses):
                logger.notice("answered \(responses.count) ping\(responses.count == 1 ? "" : "s") with the check-in",
                              metadata: ["pings": "\(responses.map(\.pingID).joined(separator: ","))"])
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
