import CheckInModels
public import CheckInStoreClient
import ComposableCore

extension CheckInFeature {
    func reduceAway(into state: inout State, action: AwayAction) -> Effect<Action> {
        switch action {
        case let .requested(request, source):
            return startAway(request, source: source, &state)

        case let .endRequested(reason):
            guard let running = state.away.running else {
                return .send(.delegate(.awayRefused(AwayError("the device is not away"))))
            }
            guard !state.away.isSaving else {
                return .send(.delegate(.awayRefused(AwayError("an away change is being saved; try again in a moment"))))
            }
            var ended = running
            ended.ended = AwayPeriod.Ending(at: clock.now(), reason: reason)
            // The backend's own change is in the settings already; the device's changes are a new version.
            let settings = reason == .backend ? nil : newSettingsVersion(away: nil, &state)
            state.away.isSaving = true
            return writeAwayEnd(ended, settings: settings)

        case let .startResponse(.success(period)):
            state.away.isSaving = false
            state.away.latest = period
            return .merge(refreshPhase(&state), .send(.delegate(.awayStarted(period))))

        case let .endResponse(.success(period)):
            state.away.isSaving = false
            state.away.latest = period
            return .merge(refreshPhase(&state), .send(.delegate(.awayEnded(period))))

        case let .startResponse(.failure(failure)), let .endResponse(.failure(failure)):
            state.away.isSaving = false
            return .send(.delegate(.awayNotSaved(failure)))
        }
    }

    /// Validates a request and stores the period; the device is away once it is stored.
    private func startAway(_ request: AwayRequest, source: AwaySource, _ state: inout State) -> Effect<Action> {
        guard state.isRunning, state.hasLoadedSettings else {
            return .send(.delegate(.awayRefused(AwayError("the device is still starting; try again in a moment"))))
        }
        guard !state.away.isSaving else {
            return .send(.delegate(.awayRefused(AwayError("an away change is being saved; try again in a moment"))))
        }
        let now = clock.now()
        let duration: Duration
        switch request {
        case let .lasting(asked):
            duration = asked
        case let .until(until):
            // A date needs a clock that can be trusted: 1970 or a stale fake-hwclock would turn it
            // into months of silence, or none.
            guard let wall = state.trustedWallTime(at: now) else {
                return .send(.delegate(.awayRefused(AwayError(
                    "the device's clock is not synchronised, so it cannot tell how far away \(until.iso8601) is; "
                        + "give a duration instead (e.g. --until 3d)"))))
            }
            duration = until - wall
        case let .untilLocal(date, minute):
            let zone = state.schedule.daily?.timeZone ?? state.timeZone
            guard let wall = state.trustedWallTime(at: now), let offset = timeZone.utcOffset(zone, wall) else {
                return .send(.delegate(.awayRefused(AwayError(
                    "the device's clock is not synchronised, so it cannot tell the local time; give a duration instead (e.g. --until 3d)"))))
            }
            let today = ZoneMath.local(wall, offset: offset).date
            var until = ZoneMath.instant(of: date ?? today, minute: minute, offsets: timeZone.offsets(zone))
            // A time of day alone is the next time the clock shows it.
            if date == nil, let first = until, first <= wall {
                until = ZoneMath.instant(of: today.adding(days: 1), minute: minute, offsets: timeZone.offsets(zone))
            }
            guard let until else {
                return .send(.delegate(.awayRefused(AwayError("the time zone \(zone ?? "of the system") cannot be read"))))
            }
            duration = until - wall
        }
        guard duration > .zero else {
            return .send(.delegate(.awayRefused(AwayError("that time has passed already"))))
        }
        guard duration <= longestAway else {
            return .send(.delegate(.awayRefused(AwayError(
                "away for \(DurationText.humane(duration)) is longer than the \(DurationText.humane(longestAway)) the device allows"))))
        }
        let period = AwayPeriod(id: newCheckInID(), start: now, duration: duration, source: source)
        let settings = source == .backend ? nil : newSettingsVersion(away: period.plan, &state)
        state.away.isSaving = true
        return .run { [store] send in
            await send(.away(.startResponse(await Result { () async throws(StoreFailure) in
                try await store.startAway(period, settings)
                return period
            })))
        }
    }

    /// An away period whose time is up: ended in memory at once (the countdown restarts from its
    /// end), and stored.
    func awayExpired(_ away: AwayPeriod, now: DeviceInstant, _ state: inout State) -> Effect<Action> {
        var ended = away
        // The reading at its end, projected from now: for the history (the countdown measures from
        // its start plus its duration, `AwayPeriod.elapsedSinceEnd`).
        let overshoot = now.elapsedTime(since: away.start).lowerBound - away.duration
        var at = now
        at.wall = now.wall + (.zero - overshoot)
        at.uptime = now.uptime - overshoot
        ended.ended = AwayPeriod.Ending(at: at, reason: .expired)
        state.away.latest = ended
        state.away.isSaving = true
        return writeAwayEnd(ended, settings: nil)
    }

    private func writeAwayEnd(_ ended: AwayPeriod, settings: StoredSettings?) -> Effect<Action> {
        .run { [store] send in
            await send(.away(.endResponse(await Result { () async throws(StoreFailure) in
                try await store.endAway(ended, settings)
                return ended
            })))
        }
    }

    /// The device's own away change is a settings change too (the backend learns it by version).
    private func newSettingsVersion(away: AwayPlan?, _ state: inout State) -> StoredSettings {
        state.settingsVersion += 1
        return StoredSettings(settings: state.settings, version: state.settingsVersion,
                              appliedFromConfig: state.appliedFromConfig, away: away)
    }

    /// Settings loaded from the store: the latest away period the first time, then the backend's
    /// away plan (saved with its settings by the sync) made true on the device.
    func reconcileAway(with stored: StoredSettings?, _ state: inout State) -> Effect<Action> {
        if state.away.latest == nil, !state.away.isSaving { state.away.latest = stored?.latestAway }
        guard !state.away.isSaving, state.isRunning else { return .none }
        let wanted = stored?.away
        let running = state.away.running
        if wanted == nil, running != nil {
            return .send(.away(.endRequested(.backend)))
        }
        if let wanted, running?.until != wanted.until,
           let wall = state.trustedWallTime(at: clock.now()), wanted.until > wall {
            return .send(.away(.requested(.until(wanted.until), .backend)))
        }
        return .none
    }
}

extension CheckInFeature.State {
    /// The settings as the store and the backend have them, with away mode.
    public func storedSettings(version: Int64? = nil) -> StoredSettings {
        StoredSettings(settings: settings, version: version ?? settingsVersion, appliedFromConfig: appliedFromConfig,
                       away: away.running?.plan)
    }
}
