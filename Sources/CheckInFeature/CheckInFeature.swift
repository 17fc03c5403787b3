public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DeviceClock

/// The check-in countdown: presses become durable check-ins, settings move the deadline, and the
/// phase (checked in → reminder → overdue) is recomputed on every event.
///
/// There is no periodic tick: after every event exactly one cancellable wake-up is scheduled at the
/// next phase boundary, so a device that sits in "checked in" for a day wakes up about twice.
public struct CheckInFeature: Reducer {
    public var store: CheckInStoreClient
    /// Where help alerts are stored before they are sent.
    public var alertStore: AlertStoreClient
    public var clock: DeviceClock
    /// Local time for daily windows and quiet hours (asked only when one is configured).
    public var timeZone: TimeZoneClient
    /// New ids for check-ins and help alerts (both random UUIDs).
    public var newCheckInID: @Sendable () -> CheckInID
    /// How many recent check-ins the feature keeps in memory.
    public var historyWindow: Int

    public init(
        store: CheckInStoreClient,
        clock: DeviceClock,
        newCheckInID: @escaping @Sendable () -> CheckInID = { CheckInID.random() },
        historyWindow: Int = 20,
        alertStore: AlertStoreClient,
        timeZone: TimeZoneClient = .failing
    ) {
        self.store = store
        self.timeZone = timeZone
        self.alertStore = alertStore
        self.clock = clock
        self.newCheckInID = newCheckInID
        self.historyWindow = historyWindow
    }

    public enum CancelID {
        static let phaseBoundary = EffectID("phase-boundary")
        static let longPress = EffectID("long-press")
        static let feedback = EffectID("feedback")
        static let alertWindow = EffectID("alert-cancel-window")
        static let alertDelivered = EffectID("alert-delivered")
        static let uploadStale = EffectID("upload-stale")
        static let quietHours = EffectID("quiet-hours")
        /// The durable write of a check-in: never cancelled (a stopping daemon waits for it).
        public static let checkInWrite = EffectID("check-in-write")
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .daemonStarted:
            state.isRunning = true
            return .merge(.send(.loadCheckInSettings), .send(.loadCheckInHistory))

        case .daemonStopping:
            state.isRunning = false
            // A check-in write in flight is deliberately not cancelled: it must finish.
            // An alert whose cancel window is still open is not stored: the log says so (docs/uplink.md).
            return .merge(.cancel(id: CancelID.phaseBoundary), .cancel(id: CancelID.longPress),
                          .cancel(id: CancelID.feedback), .cancel(id: CancelID.alertWindow),
                          .cancel(id: CancelID.alertDelivered), .cancel(id: CancelID.uploadStale),
                          .cancel(id: CancelID.quietHours))

        case .buttonPressed, .buttonReleased, .longPressThresholdReached, .buttonLost:
            return reduceButton(into: &state, action: action)

        case .storeWritable:
            return saveWhatWaits(&state)

        case let .checkInRequested(source):
            guard !state.isCheckingIn else { return .none }
            state.isCheckingIn = true
            let checkIn = NewCheckIn(id: newCheckInID(), at: clock.now(), source: source)
            if !state.pendingPings.isEmpty { return checkInAnsweringPings(checkIn, into: &state) }
            return .run { [store] send in
                await send(.checkInResponse(await Result { () async throws(StoreFailure) in
                    try await store.record(checkIn)
                }))
            }
            .cancellable(id: CancelID.checkInWrite)

        case let .checkInResponse(.success(record)):
            state.isCheckingIn = false
            let answered = pingsAnswered(into: &state)
            state.history.insert(record, at: 0)
            state.history = Array(state.history.prefix(historyWindow))
            state.feedback = .acknowledged
            // A check-in while away ends it (`[away] press_ends`): the person is back.
            let endsAway: Effect<Action> = state.away.running != nil && state.away.pressEnds
                ? .send(.away(.endRequested(record.source == .button ? .press : .cli))) : .none
            return .merge(
                refreshPhase(&state),
                showFeedback(for: state.acknowledgementDuration),
                .send(.delegate(.checkInStored(record))),
                answered,
                endsAway
            )

        case let .checkInResponse(.failure(failure)):
            state.isCheckingIn = false
            state.pingResponsesBeingStored = []  // not stored: the pings stay pending
            // Never let an earlier acknowledgement keep showing over the fault.
            state.feedback = nil
            return .merge(.cancel(id: CancelID.feedback), .send(.delegate(.checkInFailed(failure))))

        case .loadCheckInHistory:
            state.isLoadingHistory = true
            return .run { [store, historyWindow] send in
                await send(.checkInHistoryResponse(await Result { () async throws(StoreFailure) in
                    try await store.history(historyWindow)
                }))
            }

        case let .checkInHistoryResponse(.success(records)):
            state.isLoadingHistory = false
            state.history = records
            state.hasLoadedHistory = true
            return .merge(refreshPhase(&state), reanchorWallTimesIfTrusted(state), refreshQuietHours(&state))

        case let .checkInHistoryResponse(.failure(failure)):
            state.isLoadingHistory = false
            return .send(.delegate(.loadFailed(failure)))

        case .loadCheckInSettings:
            return .run { [store] send in
                await send(.checkInSettingsResponse(await Result { () async throws(StoreFailure) in
                    try await store.loadSettings()
                }))
            }

        case let .checkInSettingsResponse(result):
            return reduceLoadedSettings(into: &state, result: result)

        case let .intervalSelected(interval):
            return select(CheckInSettings(interval: interval, reminder: state.settings.reminder), into: &state)

        case let .reminderSelected(reminder):
            return select(CheckInSettings(interval: state.settings.interval, reminder: reminder), into: &state)

        case let .settingsSelected(settings):
            return select(settings, into: &state)

        case let .settingsSaveResponse(.success(stored)):
            if state.unsavedSettings?.version == stored.version { state.unsavedSettings = nil }
            return .send(.delegate(.settingsSaved(stored)))

        case let .settingsSaveResponse(.failure(failure)):
            return .send(.delegate(.settingsNotSaved(failure)))

        case .phaseBoundaryReached:
            // A boundary is a moment the device is awake anyway: the clock may have been trusted
            // since (the monitor looks at the kernel's NTP state ever less often). Daily windows
            // read the zone's rules again: the system's zone may have changed since.
            if state.schedule.daily != nil { timeZone.reload() }
            return .merge(refreshPhase(&state), reanchorWallTimesIfTrusted(state))

        case .wallClockChanged:
            // The zone's rules are read again too: the system's zone or tzdata may have changed.
            if state.needsLocalTime {
                timeZone.reload()
                // The clock was set: a synchronised reading after the step is the anchor from now on.
                let now = clock.now()
                if now.wallClockSynchronized { state.trustedWall = now }
            }
            return .merge(refreshPhase(&state), reanchorWallTimesIfTrusted(state), refreshUploadBacklog(&state),
                          refreshQuietHours(&state))

        case let .alert(action):
            return reduceAlert(into: &state, action: action)

        case let .away(action):
            return reduceAway(into: &state, action: action)

        case .quietHoursBoundaryReached:
            return refreshQuietHours(&state)

        case let .uploadBacklogChanged(oldestPendingSince):
            state.uploadBacklog.oldestPendingSince = oldestPendingSince
            return refreshUploadBacklog(&state)

        case .uploadBacklogWaitReached:
            return refreshUploadBacklog(&state)

        case let .wallTimesReanchored(.success(count)):
            return count > 0 ? .send(.loadCheckInHistory) : .none

        case .wallTimesReanchored(.failure):
            // Not a fault: within this boot the countdown runs on monotonic time regardless; the
            // next clock change or restart tries again.
            return .none

        case let .pingsReceived(pings):
            receivePings(pings, into: &state)
            return .none

        case let .pingsWithdrawn(ids):
            state.pendingPings.removeAll { ids.contains($0.id) }
            return .none

        case .feedbackFinished:
            state.feedback = nil
            return .none

        case .identifyRequested:
            // A press's own feedback is about the person: it finishes first.
            guard state.isRunning, state.feedback != .acknowledged, state.feedback != .longPress else { return .none }
            state.feedback = .identify
            return showFeedback(for: State.identifyDuration)

        case .delegate:
            return .none
        }
    }

    /// Saves what could not be saved while the store failed: the latest settings, a help alert.
    func saveWhatWaits(_ state: inout State) -> Effect<Action> {
        var effects: [Effect<Action>] = []
        if let unsaved = state.unsavedSettings { effects.append(save(unsaved)) }
        if let alert = state.alert.unsaved, !state.alert.isStoring {
            state.alert.isStoring = true
            effects.append(storeAlert(alert))
        }
        return .merge(effects)
    }

    /// Shows `state.feedback` for `duration`, replacing any feedback already showing.
    func showFeedback(for duration: Duration) -> Effect<Action> {
        .run { [clock] send in
            do {
                try await clock.sleep(duration)
                await send(.feedbackFinished)
            } catch {}  // cancelled: newer feedback or a fault replaced it
        }
        .cancellable(id: CancelID.feedback, cancelInFlight: true)
    }
}
