import CheckInFeature
import CheckInModels
import HealthchecksSyncFeature
import HeartbeatFeature
import MQTTFeature
import RespondersFeature
import UploadFeature
import CheckInStoreClient
public import ControlProtocol
public import DeviceClock
public import DeviceFeature
public import LEDDriver

/// Turns the device's state into what `status`, `queue`, `pings`, the systemd status line and the
/// terminal view show. The countdown is projected to now with the feature's one projection.
@MainActor
public final class StatusReporter {
    let clock: DeviceClock
    let store: StoreClients
    let leds: LEDDriver
    /// `simulated` or `libgpiod`.
    public let gpioBackend: String
    /// An `[uplink]` is configured.
    public let hasBackend: Bool
    /// The buzzer's driver, with `[buzzer]`.
    public var buzzer: BuzzerDriver?

    public init(clock: DeviceClock, store: StoreClients, leds: LEDDriver, gpioBackend: String, hasBackend: Bool) {
        self.clock = clock
        self.store = store
        self.leds = leds
        self.gpioBackend = gpioBackend
        self.hasBackend = hasBackend
    }

    public func status(_ state: DeviceFeature.State) async -> StatusReport {
        let checkIn = state.checkIn
        let now = clock.now()
        let countdown = checkIn.countdown(at: now)
        let conditions = state.conditions
        var report = StatusReport(
            phase: checkIn.phase.name,
            indicator: state.indicator.rawValue,
            lastCheckIn: checkIn.lastCheckIn.map(CheckInReport.init),
            deadline: countdown?.deadline.iso8601,
            secondsLeft: countdown?.remaining.wholeSeconds,
            settings: SettingsReport(checkIn.settings, version: checkIn.settingsVersion),
            leds: zip(leds.language.leds, leds.levels).map { led, on in
                var report = LEDReport(name: led.name, colour: led.colour, on: on)
                report.pattern = leds.pattern.waveform(for: led).description
                return report
            },
            queueDepth: (try? await store.checkIns.pendingUploadCount()) ?? -1,
            error: conditions.first(where: \.isFault)?.message ?? conditions.first?.message,
            isCheckingIn: checkIn.isCheckingIn,
            button: checkIn.button.rawValue,
            gpioBackend: gpioBackend,
            wallClockSynchronized: now.wallClockSynchronized,
            now: now.wall.iso8601,
            elapsedTimeUnknown: checkIn.elapsedTimeUnknown,
            uplink: uplinkReport(state),
            pings: await pings(state),
            alert: await alert(state, now: now),
            oldestNotUploaded: checkIn.uploadBacklog.oldestPendingSince?.wall.iso8601,
            uploadStale: checkIn.uploadBacklog.staleAfter == nil ? nil : checkIn.uploadBacklog.isStale)
        report.healthchecks = healthchecksReport(state)
        if state.healthchecksUpload != nil {
            report.healthchecksQueueDepth = (try? await store.healthchecksQueue.depth()) ?? -1
        }
        report.healthchecksAlert = state.healthchecksAlertUpload.map(Self.report)
        report.healthchecksChecks = state.healthchecksSync.map(Self.report)
        report.conditions = conditions.map {
            ConditionReport(kind: $0.kind.rawValue, message: $0.message, advice: $0.advice, fault: $0.isFault,
                            since: $0.since?.iso8601)
        }
        report.messages = state.messages.map(\.text)
        report.away = away(state)
        report.schedule = schedule(state)
        report.power = power(state)
        report.buzzer = buzzer.map { BuzzerReport(signal: state.buzzer?.rawValue, on: $0.isOn, beeps: $0.beeps) }
        report.mqtt = await mqttReport(state)
        report.role = state.role.rawValue
        report.helpComing = state.helpComing?.name
        report.reach = state.responders?.reach.line
        report.dependents = state.dependents.map { DependentsReport($0, role: state.role) }
        return report
    }

    /// Away mode as it is now.
    public func away(_ state: DeviceFeature.State) -> AwayReport {
        let away = state.checkIn.away
        guard let running = away.running else { return AwayReport(state: away.name, pressEnds: away.pressEnds) }
        let left = running.duration - clock.now().elapsedTime(since: running.start).lowerBound
        return AwayReport(state: away.name, since: running.start.wall.iso8601, until: running.until.iso8601,
                          secondsLeft: max(left, .zero).wholeSeconds, source: running.source.rawValue, pressEnds: away.pressEnds)
    }

    func schedule(_ state: DeviceFeature.State) -> ScheduleReport {
        let checkIn = state.checkIn
        return ScheduleReport(kind: checkIn.schedule.name, windows: checkIn.schedule.daily?.description,
                              timeZone: checkIn.schedule.daily?.timeZone ?? checkIn.timeZone, graceSeconds: checkIn.grace.wholeSeconds,
                              localTimeUnknown: checkIn.localTimeUnknown, quietHours: checkIn.quietHours?.description,
                              quietNow: checkIn.quietHours == nil ? nil : checkIn.isQuietNow)
    }

    func power(_ state: DeviceFeature.State) -> PowerReport {
        let power = state.power
        let mains: String? = power.watchesMains ? (power.mainsPresent.map { $0 ? "present" : "lost" } ?? "unknown") : nil
        return PowerReport(mains: mains, onBatterySince: power.onBatterySince?.iso8601, lowBattery: power.lowBattery,
                           events: power.recent.map(PowerEventReport.init))
    }

    func mqttReport(_ state: DeviceFeature.State) async -> MQTTReport? {
        guard let mqtt = state.mqtt else { return nil }
        return MQTTReport(
            broker: mqtt.broker, state: mqtt.connection.rawValue, lastConnected: mqtt.lastConnected?.iso8601,
            unavailableSince: mqtt.isUnavailable ? mqtt.unavailableSince?.iso8601 : nil,
            lastError: mqtt.lastFailure?.message, lastErrorKind: mqtt.lastFailure?.kind.rawValue,
            consecutiveFailures: mqtt.consecutiveFailures,
            nextRetry: mqtt.connection == .waitingToRetry ? mqtt.nextRetry?.iso8601 : nil,
            eventsWaiting: (try? await store.deviceEventQueue.depth()) ?? -1,
            eventsPublishedSinceStart: mqtt.events.uploadedSinceStart, commandsAccepted: mqtt.commandsAccepted,
            commandsRefused: mqtt.commandsRefused, lastRefusal: mqtt.lastRefusal, subscriptionProblem: mqtt.subscriptionProblem,
            deviceID: mqtt.identity.deviceID, baseTopic: mqtt.identity.baseTopic, discoveryTopic: mqtt.identity.discoveryTopic,
            remoteCheckIn: mqtt.identity.remoteCheckIn)
    }

    func queue(_ state: DeviceFeature.State) async -> ControlResponse {
        do {
            let queue = store.checkInQueue
            var report = QueueReport(depth: try await queue.depth(), oldestPending: try await queue.pending(1).first.map(CheckInReport.init),
                                     uplink: uplinkReport(state))
            report.hasBackend = hasBackend
            report.refusedCount = try await queue.refusedCount()
            report.refused = try await queue.refused(20).map(RefusedCheckInReport.init)
            if state.healthchecksUpload != nil {
                report.healthchecks = TargetQueueReport(
                    depth: try await store.healthchecksQueue.depth(),
                    refused: try await store.healthchecksQueue.refused(20).map(RefusedCheckInReport.init),
                    state: healthchecksReport(state))
            }
            return ControlResponse(queue: report)
        } catch {
            return .failure("the upload queue could not be read: \(error.message)")
        }
    }

    func pings(_ state: DeviceFeature.State) async -> PingsReport {
        PingsReport(pending: state.checkIn.pendingPings,
                    responsesWaiting: hasBackend ? ((try? await store.pingResponseQueue.depth()) ?? -1) : 0,
                    listener: state.pingListener?.status.rawValue, listenerMessage: state.pingListener?.lastMessage,
                    responseUpload: state.pingResponseUpload.map(Self.report))
    }

    private func alert(_ state: DeviceFeature.State, now: DeviceInstant) async -> AlertReport {
        let alert = state.checkIn.alert
        let secondsLeft: Int64? = alert.window.map { window in
            max((alert.settings?.cancelWindow ?? .zero) - now.elapsed(since: window.requestedAt), .zero).wholeSeconds
        }
        var report = AlertReport(state: alert.name, cancelWindowSecondsLeft: secondsLeft,
                                 waiting: alert.unacknowledged.count,
                                 uplinkConfigured: hasBackend, uplink: state.alertUpload.map(Self.report))
        report.targets = (state.healthchecksAlertUpload == nil ? [] : ["healthchecks"]) + (state.alertUpload == nil ? [] : ["backend"])
        return report
    }

    /// History rows with where each stands with every configured target: the backend's upload
    /// and the healthchecks check's pings (nothing when neither is configured).
    func history(_ records: [CheckInRecord], _ state: DeviceFeature.State) async throws(StoreFailure) -> [CheckInReport] {
        var marks: [CheckInID: DeliveryMark] = [:]
        if state.healthchecksUpload != nil, let read = store.healthchecksQueue.marks {
            marks = try await read(records.map(\.id))
        }
        return records.map { record in
            var report = CheckInReport(record)
            var deliveries: [DeliveryReport] = []
            if state.checkInUpload != nil { deliveries.append(DeliveryReport(target: "backend", state: report.uploaded ? "uploaded" : "queued")) }
            if state.healthchecksUpload != nil {
                let words: [DeliveryMark: String] = [.delivered: "pinged", .waiting: "waiting", .refused: "refused", .notSent: "not_sent"]
                deliveries.append(DeliveryReport(target: "healthchecks", state: marks[record.id].flatMap { words[$0] } ?? "waiting"))
            }
            report.deliveries = deliveries
            return report
        }
    }

    static func report(_ sync: HealthchecksSyncFeature.State) -> ChecksReport {
        ChecksReport(site: sync.endpoint, state: sync.status.rawValue, inStep: sync.isInStep, lastError: sync.lastError,
                     lastSuccess: sync.lastSuccess?.iso8601,
                     checks: sync.checks.map {
                         CheckReport(slug: $0.slug, status: $0.status, timeoutSeconds: $0.timeout.wholeSeconds,
                                     graceSeconds: $0.grace.wholeSeconds)
                     })
    }

    /// The backend upload's state with its heartbeat's.
    func uplinkReport(_ state: DeviceFeature.State) -> UplinkReport? {
        guard var report = state.checkInUpload.map(Self.report) else { return nil }
        report.heartbeat = state.backendHeartbeat.map(Self.report)
        return report
    }

    /// The healthchecks pings' state with the heartbeat check's (a heartbeat alone shows as idle).
    func healthchecksReport(_ state: DeviceFeature.State) -> UplinkReport? {
        let heartbeat = state.healthchecksHeartbeat.map(Self.report)
        guard var report = state.healthchecksUpload.map(Self.report) ?? heartbeat.map({
            UplinkReport(endpoint: $0.endpoint, state: "idle", lastResult: nil, lastMessage: nil, lastAttempt: nil,
                         lastSuccess: nil, nextRetry: nil, consecutiveFailures: 0, uploadedSinceStart: 0)
        }) else { return nil }
        report.heartbeat = heartbeat
        return report
    }

    static func report<Item>(_ upload: UploadFeature<Item>.State) -> UplinkReport {
        var report = UplinkReport(
            endpoint: upload.endpoint, state: upload.status.rawValue, lastResult: upload.lastResult?.rawValue,
            lastMessage: upload.lastMessage, lastAttempt: upload.lastAttempt?.iso8601, lastSuccess: upload.lastSuccess?.iso8601,
            nextRetry: upload.status == .waitingToRetry ? upload.nextRetry?.iso8601 : nil,
            consecutiveFailures: upload.consecutiveFailures, uploadedSinceStart: upload.uploadedSinceStart)
        report.refusedSinceStart = upload.refusedSinceStart
        return report
    }

    static func report(_ heartbeat: HeartbeatFeature.State) -> HeartbeatReport {
        HeartbeatReport(endpoint: heartbeat.endpoint, periodSeconds: heartbeat.period.wholeSeconds,
                        lastAttempt: heartbeat.lastAttempt?.iso8601, lastSuccess: heartbeat.lastSuccess?.iso8601,
                        lastError: heartbeat.lastError)
    }

    /// One line for `systemctl status` and the terminal view: what the LEDs say, the deadline, and
    /// the most serious condition.
    public func summary(_ state: DeviceFeature.State) -> String {
        var text = String(state.indicator.rawValue.map { $0 == "_" ? " " : $0 })
        if let countdown = state.checkIn.countdown(at: clock.now()) {
            text += countdown.remaining > .zero
                ? " · deadline in \(DurationText.humane(countdown.remaining))"
                : " · overdue by \(DurationText.humane(countdown.remaining))"
        }
        if let condition = state.conditions.first { text += " · \(condition.message)" }
        return text
    }
}

extension RefusedCheckInReport {
    init(_ refused: RefusedCheckIn) {
        self.init(checkIn: CheckInReport(refused.record), message: refused.message)
    }
}
