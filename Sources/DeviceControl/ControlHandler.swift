import CheckInFeature
import CheckInModels
import CheckInStoreClient
public import ComposableCore
import ControlProtocol
public import DeviceClock
public import DeviceFeature
import LEDDriver

/// Answers `lifesignalctl`: reads the device's state, sends it actions and waits for its answers.
@MainActor
public final class ControlHandler {
    let store: Store<DeviceFeature>
    let waiters: ActionWaiters<DeviceFeature.Action>
    let context: ControlContext
    let notifications: NotificationsControl
    let dependents: DependentsControl
    let responders: RespondersControl
    static let answerTimeout = Duration.seconds(10)
    /// What only a device with a countdown does.
    static let personsOwn: Set<ControlRequest.Command> = [.checkIn, .setSettings, .alertSend, .alertCancel, .away, .awayEnd]

    public init(store: Store<DeviceFeature>, waiters: ActionWaiters<DeviceFeature.Action>, context: ControlContext) {
        self.store = store
        self.waiters = waiters
        self.context = context
        notifications = NotificationsControl(store: store, waiters: waiters, clock: context.clock,
                                             hasUplink: context.reports.hasBackend)
        dependents = DependentsControl(store: store, waiters: waiters, clock: context.clock)
        responders = RespondersControl(store: store, waiters: waiters, clock: context.clock)
    }

    public func handle(_ line: String) async -> String {
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
        if store.state.role == .watcher, Self.personsOwn.contains(request.command) {
            return .failure("this is a watcher ([device] role = \"watcher\"): it has no countdown of its own to "
                            + "\(request.command.rawValue); `lifesignalctl dependents` shows the people it looks after")
        }
        switch request.command {
        case .status:
            return ControlResponse(status: await context.reports.status(store.state))
        case .checkIn:
            return await checkIn()
        case .history:
            let limit: Int
            switch ControlRequest.historyLimit(request.limit) {
            case let .success(valid): limit = valid
            case let .failure(problem): return .failure("history \(problem.message)")
            }
            do {
                let records = try await context.store.checkIns.history(limit)
                return ControlResponse(history: try await context.reports.history(records, store.state))
            } catch {
                return .failure("history could not be read: \(error.message)")
            }
        case .settings:
            return ControlResponse(settings: SettingsReport(store.state.checkIn.settings, version: store.state.checkIn.settingsVersion))
        case .setSettings:
            return await setSettings(interval: request.interval, reminder: request.reminder)
        case .simPress:
            guard let simulatePress = context.simulatePress else {
                return .failure("sim press needs the simulated GPIO backend; this daemon uses \(context.reports.gpioBackend)")
            }
            // An unreadable hold is refused, never pressed as the default: a press is a check-in.
            let hold: Duration
            switch ControlRequest.hold(request.hold) {
            case let .success(valid): hold = valid
            case let .failure(problem): return .failure(problem.message)
            }
            await simulatePress(hold)
            return ControlResponse(status: await context.reports.status(store.state))
        case .dismissError:
            store.send(.dismissMessages)
            return ControlResponse(status: await context.reports.status(store.state))
        case .queue:
            return await context.reports.queue(store.state)
        case .notifications, .notificationRead, .notificationsReadAll, .notificationClear, .notificationsClearAll:
            return await notifications.handle(request)
        case .pings:
            return ControlResponse(pings: await context.reports.pings(store.state))
        case .dependents, .dependentsAdd, .dependentsRemove, .dependentsPing, .dependentsClearPing, .dependentsOnIt, .dependentsSort:
            return await dependents.handle(request)
        case .responders, .respondersRemove, .respondersAllow:
            return await responders.handle(request)
        case .alertSend:
            guard store.state.checkIn.alert.settings != nil else {
                return .failure("alerts are off on this device ([alert] enabled = false)")
            }
            guard store.state.checkIn.alert.window == nil else {
                return .failure("an alert's cancel window is already open; `lifesignalctl alert cancel` cancels it")
            }
            store.send(.checkIn(.alert(.requested(.cli))))
            return ControlResponse(status: await context.reports.status(store.state))
        case .away:
            return await away(request.until)
        case .awayEnd:
            return await awayChange(trigger: .checkIn(.away(.endRequested(.cli))))
        case .awayList:
            let limit: Int
            switch ControlRequest.historyLimit(request.limit) {
            case let .success(valid): limit = valid
            case let .failure(problem): return .failure("away list \(problem.message)")
            }
            do {
                var response = ControlResponse()
                response.awayPeriods = try await context.store.checkIns.awayPeriods(limit).map(AwayPeriodReport.init)
                return response
            } catch {
                return .failure("the away periods could not be read: \(error.message)")
            }
        case .simInput:
            guard let simulateInput = context.simulateInput else {
                return .failure("sim input needs the simulated GPIO backend; this daemon uses \(context.reports.gpioBackend)")
            }
            guard let line = request.line, let active = request.active else {
                return .failure("sim input needs line (mains or low_battery) and active (true or false)")
            }
            if let problem = simulateInput(line, active) { return .failure(problem) }
            return ControlResponse(status: await context.reports.status(store.state))
        case .alertCancel:
            guard store.state.checkIn.alert.window != nil else {
                return .failure("no alert is waiting to be sent: there is no open cancel window "
                                + "(an alert whose window has ended is stored and being sent; it cannot be recalled)")
            }
            store.send(.checkIn(.alert(.cancelRequested(.cli))))
            return ControlResponse(status: await context.reports.status(store.state))
        }
    }

    private func checkIn() async -> ControlResponse {
        let answer = await waiters.wait(
            for: {
                switch $0 {
                case .checkIn(.delegate(.checkInStored)), .checkIn(.delegate(.checkInFailed)): true
                default: false
                }
            },
            timeout: Self.answerTimeout, sleep: context.clock.sleep,
            trigger: { store.send(.checkIn(.checkInRequested(.cli))) })
        switch answer {
        case let .checkIn(.delegate(.checkInStored(record)))?:
            return ControlResponse(checkIn: CheckInReport(record))
        case let .checkIn(.delegate(.checkInFailed(failure)))?:
            return .failure("check-in NOT saved: \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.humane(Self.answerTimeout)); "
                            + "the check-in may still be saved — run `lifesignalctl history`")
        }
    }

    private func away(_ until: String?) async -> ControlResponse {
        guard let until else { return .failure("away needs --until: a duration (3d), a time (18:00) or a date (2026-12-24 18:00)") }
        let request: AwayRequest
        switch AwayUntil.parsing(until) {
        case let .success(.lasting(duration)): request = .lasting(duration)
        case let .success(.instant(instant)): request = .until(instant)
        case let .success(.local(date, minute)): request = .untilLocal(date: date, minute: minute)
        case let .failure(problem): return .failure(problem.message)
        }
        return await awayChange(trigger: .checkIn(.away(.requested(request, .cli))))
    }

    /// Sends an away change and answers once it is stored (or refused).
    private func awayChange(trigger action: DeviceFeature.Action) async -> ControlResponse {
        let answer = await waiters.wait(
            for: {
                switch $0 {
                case .checkIn(.delegate(.awayStarted)), .checkIn(.delegate(.awayEnded)), .checkIn(.delegate(.awayRefused)),
                     .checkIn(.delegate(.awayNotSaved)): true
                default: false
                }
            },
            timeout: Self.answerTimeout, sleep: context.clock.sleep,
            trigger: { store.send(action) })
        switch answer {
        case .checkIn(.delegate(.awayStarted))?, .checkIn(.delegate(.awayEnded))?:
            var response = ControlResponse()
            response.away = context.reports.away(store.state)
            return response
        case let .checkIn(.delegate(.awayRefused(problem)))?:
            return .failure("away mode not changed: \(problem.message)")
        case let .checkIn(.delegate(.awayNotSaved(failure)))?:
            return .failure("away mode NOT changed: it could not be stored: \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.humane(Self.answerTimeout))")
        }
    }

    private func setSettings(interval: String?, reminder: String?) async -> ControlResponse {
        guard interval != nil || reminder != nil else { return .failure("give --interval, --reminder or both") }
        var candidate = store.state.checkIn.settings
        for (name, text, keyPath) in [("interval", interval, \CheckInSettings.interval),
                                      ("reminder", reminder, \CheckInSettings.reminder)] {
            guard let text else { continue }
            switch ControlRequest.duration(name, text) {
            case let .success(value): candidate[keyPath: keyPath] = value
            case let .failure(problem): return .failure(problem.message)
            }
        }
        let answer = await waiters.wait(
            for: {
                switch $0 {
                case .checkIn(.delegate(.settingsSaved)), .checkIn(.delegate(.settingsRejected)),
                     .checkIn(.delegate(.settingsNotSaved)): true
                default: false
                }
            },
            timeout: Self.answerTimeout, sleep: context.clock.sleep,
            trigger: { store.send(.checkIn(.settingsSelected(candidate))) })
        switch answer {
        case let .checkIn(.delegate(.settingsSaved(stored)))?:
            return ControlResponse(settings: SettingsReport(stored.settings, version: stored.version))
        case let .checkIn(.delegate(.settingsRejected(problem)))?:
            return .failure("settings not changed: \(problem.message)")
        case let .checkIn(.delegate(.settingsNotSaved(failure)))?:
            return .failure("settings apply now but were NOT saved (saved as soon as the store can write): \(failure.message)")
        default:
            return .failure("no answer from the store within \(DurationText.humane(Self.answerTimeout))")
        }
    }
}

/// What the control handler reaches besides the device's state.
@MainActor
public struct ControlContext {
    public var clock: DeviceClock
    public var store: StoreClients
    public var reports: StatusReporter
    /// Presses the simulated button for the given time; nil with real GPIO.
    public var simulatePress: (@Sendable (Duration) async -> Void)?
    /// Sets a simulated input (`mains`, `low_battery`); returns why not, or nil. Nil with real GPIO.
    public var simulateInput: (@Sendable (_ line: String, _ active: Bool) -> String?)?

    public init(clock: DeviceClock, store: StoreClients, reports: StatusReporter,
                simulatePress: (@Sendable (Duration) async -> Void)?,
                simulateInput: (@Sendable (_ line: String, _ active: Bool) -> String?)? = nil) {
        self.clock = clock
        self.store = store
        self.reports = reports
        self.simulatePress = simulatePress
        self.simulateInput = simulateInput
    }
}
