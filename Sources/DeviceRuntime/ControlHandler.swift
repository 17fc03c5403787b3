import CheckInFeature
import CheckInModels
import CheckInStoreClient
import ComposableCore
import ControlProtocol
import DeviceClock

/// Answers `lifesignalctl`: reads the feature's state, sends it actions and waits for its answers.
@MainActor
final class ControlHandler {
    let store: Store<CheckInFeature>
    let storeClient: CheckInStoreClient
    let leds: LEDDriver
    let clock: DeviceClock
    let gpioBackend: String
    /// Present only when the simulated GPIO backend is active.
    let simulatePress: (@Sendable (Duration) async -> Void)?
    let waiters: DelegateWaiters<CheckInFeature.Action.Delegate>
    let uploadQueue: UploadQueue<CheckInRecord>
    let uploader: CheckInUploader?
    let alertUploader: Uploader<AlertRecord>?
    /// How many alerts wait for the backend.
    let alertsWaiting: @Sendable () async throws(StoreFailure) -> Int
    /// `lifesignalctl notifications` and its operations.
    var notifications: NotificationsControl?
    let pings: PingServices?
    /// Heartbeats and healthchecks pings, for `status` and `queue`.
    var deliveries: DeliveryServices?
    static let answerTimeout = Duration.seconds(10)

    init(store: Store<CheckInFeature>, storeClient: CheckInStoreClient, leds: LEDDriver, clock: DeviceClock,
         gpioBackend: String, simulatePress: (@Sendable (Duration) async -> Void)?, waiters: DelegateWaiters<CheckInFeature.Action.Delegate>,
         uploadQueue: UploadQueue<CheckInRecord>, uploader: CheckInUploader?, alertUploader: Uploader<AlertRecord>? = nil,
         alertsWaiting: @escaping @Sendable () async throws(StoreFailure) -> Int = { 0 }, pings: PingServices? = nil) {
        self.alertUploader = alertUploader
        self.alertsWaiting = alertsWaiting
        self.store = store
        self.storeClient = storeClient
        self.leds = leds
        self.clock = clock
        self.gpioBackend = gpioBackend
        self.simulatePress = simulatePress
        self.waiters = waiters
        self.uploadQueue = uploadQueue
        self.uploader = uploader
        self.pings = pings
    }

    func handle(_ line: String) async -> String {
        let response: ControlResponse
        switch ControlCoding.decode(ControlRequest.self, from: line) {
        case let .failure(problem):
            response = .failure("bad request: \(problem.message)")
        case let .success(request):
            response = await handle(request)
        }
        return ControlCoding.encode(response)
    }

    func handle(_ request: ControlRequest) async -> ControlResponse {
        switch request.command {
        case .status:
            return ControlResponse(status: await status())
        case .checkIn:
            return await checkIn()
        case .history:
            let limit = request.limit ?? 10
            guard (1...10_000).contains(limit) else { return .failure("history limit must be 1…10000, not \(limit)") }
            do {
                return ControlResponse(history: try await storeClient.history(limit).map(CheckInReport.init))
            } catch {
                return .failure("history could not be read: \(error.message)")
            }
        case .settings:
            return ControlResponse(settings: SettingsReport(store.state.settings, version: store.state.settingsVersion))
        case .setSettings:
            return await setSettings(interval: request.interval, reminder: request.reminder)
        case .simPress:
            guard let simulatePress else {
                return .failure("sim press needs the simulated GPIO backend; this daemon uses \(gpioBackend)")
            }
            let hold = request.hold.flatMap(DurationText.parse) ?? .milliseconds(150)
            guard hold >= .milliseconds(1), hold <= .seconds(60) else {
                return .failure("hold must be between 1ms and 60s, not \(request.hold ?? "")")
            }
            await simulatePress(hold)
            return ControlResponse(status: await status())
        case .dismissError:
            store.send(.dismissError)
            return ControlResponse(status: await status())
        case .queue:
            return await queue()
        case .notifications, .notificationRead, .notificationsReadAll, .notificationClear, .notificationsClearAll:
            guard let notifications else { return .failure("notifications are not available in this daemon") }
            return await notifications.handle(request)
        case .pings:
            return ControlResponse(pings: await pingsReport() ?? PingsReport(
                pending: [], responsesWaiting: 0, listener: nil, listenerMessage: nil, responseUpload: nil))
        case .alertSend:
            guard store.state.alert.settings != nil else {
                return .failure("alerts are off on this device ([alert] enabled = false)")
            }
            guard store.state.alert.window == nil else {
                return .failure("an alert's cancel window is already open; `lifesignalctl alert cancel` cancels it")
            }
            store.send(.alert(.requested(.cli)))
            return ControlResponse(status: await status())
        case .alertCancel:
            guard store.state.alert.window != nil else {
                return .failure("no alert is waiting to be sent: there is no open cancel window "
                                + "(an alert whose window has ended is stored and being sent; it cannot be recalled)")
            }
            store.send(.alert(.cancelRequested(.cli)))
            return ControlResponse(status: await status())
        }
    }

    private func checkIn() async -> ControlResponse {
        let answer = await waiters.wait(
            for: { if case .checkInStored = $0 { true } else if case .checkInFailed = $0 { true } else { false } },
            timeout: Self.answerTimeout, sleep: clock.sleep,
            trigger: { store.send(.checkInRequested(.cli)) }
        )
        switch answer {
        case let .checkInStored(record)?:
            return ControlResponse(checkIn: CheckInReport(record))
        case let .checkInFailed(failure)?:
            return .failure("check-in NOT saved: \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.format(Self.answerTimeout)); the check-in may still be saved — run `lifesignalctl history`")
        }
    }

    private func setSettings(interval: String?, reminder: String?) async -> ControlResponse {
        guard interval != nil || reminder != nil else { return .failure("give --interval, --reminder or both") }
        var candidate = store.state.settings
        for (name, text, keyPath) in [("interval", interval, \CheckInSettings.interval),
                                      ("reminder", reminder, \CheckInSettings.reminder)] {
            guard let text else { continue }
            guard let value = DurationText.parse(text) else {
                return .failure("\(name) '\(text)' is not a duration: write e.g. 16h, 90m, 1h30m")
            }
            candidate[keyPath: keyPath] = value
        }
        let answer = await waiters.wait(
            for: {
                switch $0 {
                case .settingsSaved, .settingsRejected, .settingsNotSaved: true
                default: false
                }
            },
            timeout: Self.answerTimeout, sleep: clock.sleep,
            trigger: { store.send(.settingsSelected(candidate)) }
        )
        switch answer {
        case let .settingsSaved(stored)?:
            return ControlResponse(settings: SettingsReport(stored.settings, version: stored.version))
        case let .settingsRejected(problem)?:
            return .failure("settings not changed: \(problem.message)")
        case let .settingsNotSaved(failure)?:
            return .failure("settings apply now but were NOT saved: \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.format(Self.answerTimeout))")
        }
    }

    private func queue() async -> ControlResponse {
        do {
            let depth = try await uploadQueue.depth()
            let oldest = try await uploadQueue.pending(1).first
            var report = QueueReport(depth: depth, oldestPending: oldest.map(CheckInReport.init), uplink: uplinkReport)
            report.refusedCount = try await uploadQueue.refusedCount()
            report.refused = try await uploadQueue.refused(20).map(RefusedCheckInReport.init)
            report.healthchecks = try await deliveries?.healthchecksQueueReport()
            return ControlResponse(queue: report)
        } catch {
            return .failure("the upload queue could not be read: \(error.message)")
        }
    }

    /// Pending pings and how the answers' upload goes; nil on an offline device with none pending.
    private func pingsReport() async -> PingsReport? {
        let pending = store.state.pendingPings
        if let pings { return await pings.report(pending: pending) }
        guard !pending.isEmpty else { return nil }
        return PingsReport(pending: pending, responsesWaiting: -1, listener: nil, listenerMessage: nil,
                           responseUpload: nil)
    }

    func status() async -> StatusReport {
        let state = store.state
        let queueDepth = (try? await storeClient.pendingUploadCount()) ?? -1
        let now = clock.now()
        let countdown = state.phase.countdown
        // The stored countdown is as of the last event; project it to now for the answer.
        let secondsLeft: Int64? = state.lastCheckIn.map { last in
            (state.settings.interval - max(now.elapsed(since: last.at), .zero)).wholeSeconds
        }
        var report = StatusReport(
            phase: state.phase.name,
            indicator: state.indicator.rawValue,
            lastCheckIn: state.lastCheckIn.map(CheckInReport.init),
            deadline: countdown.map { _ in (now.wall + .seconds(secondsLeft ?? 0)).iso8601 },
            secondsLeft: secondsLeft,
            settings: SettingsReport(state.settings, version: state.settingsVersion),
            leds: zip(leds.language.leds, leds.levels).map { LEDReport(name: $0.name, colour: $0.colour, on: $1) },
            queueDepth: queueDepth,
            error: state.error?.message,
            isCheckingIn: state.isCheckingIn,
            button: state.button.rawValue,
            gpioBackend: gpioBackend,
            wallClockSynchronized: now.wallClockSynchronized,
            now: now.wall.iso8601,
            elapsedTimeUnknown: state.elapsedTimeUnknown,
            uplink: uplinkReport,
            pings: await pingsReport(),
            alert: await alertReport(now: now),
            oldestNotUploaded: state.uploadBacklog.oldestPendingSince?.wall.iso8601,
            uploadStale: state.uploadBacklog.staleAfter == nil ? nil : state.uploadBacklog.isStale
        )
        report.healthchecks = deliveries?.healthchecksReport
        return report
    }

    /// The backend upload's state with its heartbeat's.
    private var uplinkReport: UplinkReport? {
        guard var report = uploader?.report else { return nil }
        report.heartbeat = deliveries?.backendHeartbeat?.report
        return report
    }

    private func alertReport(now: DeviceInstant) async -> AlertReport {
        let alert = store.state.alert
        let secondsLeft: Int64? = alert.window.map { window in
            max((alert.settings?.cancelWindow ?? .zero) - now.elapsed(since: window.requestedAt), .zero).wholeSeconds
        }
        return AlertReport(state: alert.name, cancelWindowSecondsLeft: secondsLeft,
                           waiting: (try? await alertsWaiting()) ?? -1,
                           uplinkConfigured: alertUploader != nil, uplink: alertUploader?.report)
    }
}
