public import CheckInModels
public import CheckInStoreClient

extension CheckInFeature {
    /// Everything that can happen to the check-in feature, named for what happened.
    /// Device counterparts of the app's `CheckInFeature.Action` are noted on each case.
    public enum Action: Equatable, Sendable {
        // MARK: User actions
        /// The debounced button went down.
        case buttonPressed
        /// The debounced button came up: a short press is a check-in (app: `checkInButtonTapped`).
        case buttonReleased
        /// The button has been held for the long-press time.
        case longPressThresholdReached
        /// A check-in asked for by a short press or by `lifesignalctl check-in`.
        case checkInRequested(CheckInSource)
        /// A new interval chosen (app: `intervalSelection(.presented(.intervalSelected))`).
        case intervalSelected(Duration)
        /// A new reminder lead chosen (app: `reminderSelection(.presented(.intervalSelected))`).
        case reminderSelected(Duration)
        /// Both chosen at once (`lifesignalctl settings set --interval … --reminder …`), validated together.
        case settingsSelected(CheckInSettings)
        case loadCheckInHistory

        // MARK: System actions
        /// The daemon has started (app: `appBecameActive`).
        case daemonStarted
        /// The daemon is shutting down (app: `appBecameInactive`).
        case daemonStopping
        case loadCheckInSettings
        /// The next phase boundary (reminder start or deadline) has come (replaces the app's 1 Hz `timerTick`).
        case phaseBoundaryReached
        /// The acknowledgement or long-press feedback has been shown long enough.
        case feedbackFinished
        /// Show the identify pattern for `State.identifyDuration` (Home Assistant's identify button).
        case identifyRequested
        /// The button went with its GPIO chip: a press in progress ends without a check-in.
        case buttonLost
        /// The store proved it can write again: what could not be saved meanwhile (settings, a
        /// help alert) is saved now.
        case storeWritable
        /// The wall clock was set or stepped (NTP, an operator, the first synchronisation) or has
        /// become synchronised. Countdowns run on monotonic time and do not move; the deadline shown
        /// is recomputed, unknown elapsed time may become known, and unsynchronised check-ins of this
        /// boot get their wall time re-anchored.
        case wallClockChanged
        /// Responders' pings arrived from the backend (the ping listener) or were loaded from the
        /// store at start-up; ones already pending are ignored. The next check-in answers them all.
        case pingsReceived([PendingPing])
        /// Pings withdrawn by whoever raised them (a watcher's `clear_ping`): no longer pending.
        case pingsWithdrawn([String])

        /// The uploader's view of its queue: when the oldest check-in the backend has not acknowledged
        /// was made (nil: none waits).
        case uploadBacklogChanged(oldestPendingSince: DeviceInstant?)
        /// The oldest unacknowledged check-in has now waited `[uplink] stale_after` (the one wake-up).
        case uploadBacklogWaitReached
        /// The help alert (long press → cancel window → stored → sent → acknowledged).
        case alert(AlertAction)
        /// Away mode: started, ended, stored.
        case away(AwayAction)
        /// The quiet hours have started or ended (the one wake-up).
        case quietHoursBoundaryReached

        // MARK: Effect responses
        /// The durable write finished, or failed.
        case checkInResponse(Result<CheckInRecord, StoreFailure>)
        case checkInHistoryResponse(Result<[CheckInRecord], StoreFailure>)
        case checkInSettingsResponse(Result<StoredSettings?, StoreFailure>)
        case settingsSaveResponse(Result<StoredSettings, StoreFailure>)
        /// How many check-ins of this boot had their wall time re-anchored.
        case wallTimesReanchored(Result<Int, StoreFailure>)

        // MARK: Delegate actions, for whoever hosts the feature (control socket, logs)
        case delegate(Delegate)

        public enum Delegate: Equatable, Sendable {
            case checkInStored(CheckInRecord)
            case checkInFailed(StoreFailure)
            /// The history or the settings could not be read from the store.
            case loadFailed(StoreFailure)
            /// The stored settings are outside this device's policy; they are used anyway (never a
            /// silent fallback), and the operator should know.
            case storedSettingsRefused(SettingsError)
            case settingsSaved(StoredSettings)
            case settingsRejected(SettingsError)
            case settingsNotSaved(StoreFailure)
            case longPressed
            /// A check-in answered these pings; the responses are stored with it, waiting for upload.
            case pingsAnswered([PingResponse])
            case alertCancelled(AlertSource)
            /// The alert is stored durably and waits for the uploader.
            case alertStored(AlertRecord)
            case alertNotStored(StoreFailure)
            /// Away mode is on: the period is stored.
            case awayStarted(AwayPeriod)
            /// Away mode ended (its time was up, the CLI, a press, the backend): the countdown starts afresh.
            case awayEnded(AwayPeriod)
            case awayRefused(AwayError)
            /// An away change could not be stored: it does not apply (a running period stays).
            case awayNotSaved(StoreFailure)
        }
    }
}
