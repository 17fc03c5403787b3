public import CheckInModels
import ComposableCore

/// `[quiet_hours]`: whether they hold now, on the local clock of `[check_in] time_zone`, with one
/// wake-up at their next start or end. Only the reminder's beeps are silenced; while the local
/// time is unknown they do not hold (a beep too many at night, never a silenced reminder by mistake).
extension CheckInFeature {
    func refreshQuietHours(_ state: inout State) -> Effect<Action> {
        guard let quiet = state.quietHours else { return .none }
        let now = clock.now()
        if now.wallClockSynchronized, state.trustedWall?.bootID != now.bootID { state.trustedWall = now }
        let offsets = timeZone.offsets(state.timeZone)
        guard let wall = state.trustedWallTime(at: now), let offset = offsets(wall) else {
            state.isQuietNow = false
            return .cancel(id: CancelID.quietHours)
        }
        let local = ZoneMath.local(wall, offset: offset)
        state.isQuietNow = quiet.contains(minuteOfDay: Int(local.secondOfDay / 60))
        var next: WallTime?
        for day: Int64 in [0, 1] {
            for time in [quiet.from, quiet.to] {
                guard let instant = ZoneMath.instant(of: local.date.adding(days: day), minute: time.minuteOfDay, offsets: offsets),
                      instant > wall else { continue }
                next = min(next ?? instant, instant)
            }
        }
        guard state.isRunning, let next else { return .cancel(id: CancelID.quietHours) }
        return .run { [clock] send in
            do {
                try await clock.sleep(next - wall)
                await send(.quietHoursBoundaryReached)
            } catch {}  // rescheduled or stopping
        }
        .cancellable(id: CancelID.quietHours, cancelInFlight: true)
    }
}

extension CheckInFeature.State {
    /// What the buzzer says now, most important first: a help alert's cancel window, the
    /// last-chance warning, a responder's ping, the reminder (silent in quiet hours). Nil: silence.
    public var buzzer: BuzzerSignal? {
        if alert.window != nil { return .alertCancelWindow }
        if case .lastChance = phase { return .lastChance }
        if !pendingPings.isEmpty { return .ping }
        if case .reminder = phase, !isQuietNow { return .reminder }
        return nil
    }
}
