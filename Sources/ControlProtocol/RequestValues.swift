import CheckInModels

/// The values a request carries, checked the same way by `lifesignalctl` (before sending, exit 64)
/// and by `lifesignald` (for any client): a value that is not valid is refused with a message naming
/// it, never replaced by a default. Texts a person typed are shown escaped (`TerminalText`).
extension ControlRequest {
    /// `history`: how many check-ins may be asked for, and how many when `limit` is not given.
    public static let historyLimits = 1...10_000
    public static let defaultHistoryLimit = 10

    /// `sim-press`: how long the simulated button may be held, and how long when `hold` is not given.
    public static let holdRange = Duration.milliseconds(1)...Duration.seconds(60)
    public static let defaultHold = Duration.milliseconds(150)

    /// `limit`, or the default when absent.
    public static func historyLimit(_ limit: Int?) -> Result<Int, ControlProtocolError> {
        guard let limit else { return .success(defaultHistoryLimit) }
        guard historyLimits.contains(limit) else {
            return .failure(ControlProtocolError(
                "limit must be between \(historyLimits.lowerBound) and \(historyLimits.upperBound), not \(limit)"))
        }
        return .success(limit)
    }

    /// `hold` as a duration within `holdRange`, or the default when absent.
    public static func hold(_ text: String?) -> Result<Duration, ControlProtocolError> {
        guard let text else { return .success(defaultHold) }
        return duration("hold", text).flatMap { hold in
            guard holdRange.contains(hold) else {
                return .failure(ControlProtocolError("hold \(DurationText.format(hold)) is out of range: hold the button "
                    + "from \(DurationText.format(holdRange.lowerBound)) to \(DurationText.format(holdRange.upperBound))"))
            }
            return .success(hold)
        }
    }

    /// A duration field (`interval`, `reminder`, `hold`) read with `DurationText`, the one parser.
    public static func duration(_ field: String, _ text: String) -> Result<Duration, ControlProtocolError> {
        DurationText.parsing(text).mapError { problem in
            ControlProtocolError("\(field) \(TerminalText.quoted(text)) is not a duration: \(problem.message)")
        }
    }
}
