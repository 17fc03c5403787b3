public import CheckInModels
public import CheckInStoreClient

/// Away mode: while an away period runs there is no reminder and no overdue; when it ends (its
/// time is up, `lifesignalctl away end`, a press, the backend) a fresh countdown starts from that
/// moment. The period is stored before the device claims it, and a restart keeps it.
public struct AwayState: Equatable, Sendable {
    /// The latest away period: running, or ended (the countdown counts from its end).
    public var latest: AwayPeriod?
    /// `[away] press_ends`: a press while away ends it (and checks in).
    public var pressEnds: Bool
    /// A start or an end is being written.
    public var isSaving = false

    public init(pressEnds: Bool = true) {
        self.pressEnds = pressEnds
    }

    /// The running period, if any (one whose time is up counts until the phase refresh ends it).
    public var running: AwayPeriod? {
        guard let latest, latest.ended == nil else { return nil }
        return latest
    }

    /// For status: `off`, `away`, `saving`.
    public var name: String {
        if isSaving { return "saving" }
        return running == nil ? "off" : "away"
    }
}

extension AwayPeriod {
    /// Time since the period ended, measured like a countdown (docs/time.md): from the reading
    /// taken when it was ended early, or from its start less its duration when its time ran out
    /// (so it is exact exactly when the time since its start is). Nil while it still runs.
    public func elapsedSinceEnd(at now: DeviceInstant) -> ElapsedTime? {
        if let ended, ended.reason != .expired { return now.elapsedTime(since: ended.at) }
        let sinceStart = now.elapsedTime(since: start)
        guard sinceStart.lowerBound >= duration else { return nil }
        switch sinceStart {
        case let .exactly(elapsed): return .exactly(elapsed - duration)
        case let .atLeast(elapsed): return .atLeast(elapsed - duration)
        }
    }

    /// When it ended on the wall clock (for the daily windows, which count only after it).
    public var endWall: WallTime {
        if let ended, ended.reason != .expired { return ended.at.wall }
        return until
    }
}

/// How long an away period lasts, as asked: for a while, or until a wall-clock time.
public enum AwayRequest: Hashable, Sendable {
    case lasting(Duration)
    case until(WallTime)
    /// A time on the device's local clock (`[check_in] time_zone`, else the system's): on `date`,
    /// or the next time the clock shows `minute` when there is no date.
    case untilLocal(date: LocalDate?, minute: Int)
}

/// Why an away request was refused.
public struct AwayError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension CheckInFeature {
    /// Everything that happens to away mode.
    public enum AwayAction: Equatable, Sendable {
        /// `lifesignalctl away --until …` (or the backend, through the settings).
        case requested(AwayRequest, AwaySource)
        /// `lifesignalctl away end`, or a press while away.
        case endRequested(AwayEndReason)
        /// The period is stored (or not): the device is away from now.
        case startResponse(Result<AwayPeriod, StoreFailure>)
        /// Its end is stored (or not).
        case endResponse(Result<AwayPeriod, StoreFailure>)
    }
}
