public import CheckInFeature
public import CheckInModels
public import GPIOFeature
public import HeartbeatFeature
public import LEDLanguage
public import NotificationsFeature
public import PingListenerFeature
public import SettingsSyncFeature
public import StoreHealthFeature
public import UploadFeature
public import GPIOClient
public import HealthchecksSyncFeature
public import PowerFeature
public import MQTTFeature
public import DependentsFeature
public import RespondersFeature

extension DeviceFeature {
    /// The whole device: every feature's state, and the messages waiting to be dismissed.
    public struct State: Equatable, Sendable {
        public var checkIn: CheckInFeature.State
        public var store = StoreHealthFeature.State()
        public var gpio: GPIOFeature.State
        public var notifications = NotificationsFeature.State()

        // The uplink's parts, each nil where its target is not configured.
        /// Check-ins to the backend.
        public var checkInUpload: UploadFeature<CheckInRecord>.State?
        /// Help alerts to the backend.
        public var alertUpload: UploadFeature<AlertRecord>.State?
        /// Answers to pings to the backend.
        public var pingResponseUpload: UploadFeature<PingResponse>.State?
        /// Check-ins to the healthchecks check.
        public var healthchecksUpload: UploadFeature<CheckInRecord>.State?
        public var backendHeartbeat: HeartbeatFeature.State?
        public var healthchecksHeartbeat: HeartbeatFeature.State?
        public var pingListener: PingListenerFeature.State?
        public var settingsSync: SettingsSyncFeature.State?
        /// Help alerts to the healthchecks alert check.
        public var healthchecksAlertUpload: UploadFeature<AlertRecord>.State?
        /// The device's own healthchecks checks kept in step with its settings (`api_key_file`).
        public var healthchecksSync: HealthchecksSyncFeature.State?
        /// The mains power, the battery and the previous run's end.
        public var power = PowerFeature.State()
        /// The device's own events to the backend; nil without `[uplink]`.
        public var eventUpload: UploadFeature<PowerEvent>.State?
        /// The device's own events to the healthchecks check-in check's log; nil without one.
        public var healthchecksEventUpload: UploadFeature<PowerEvent>.State?
        /// The MQTT broker (`[mqtt]`); nil without one.
        public var mqtt: MQTTFeature.State?
        /// `[device] role`: a person's device, a watcher, or both.
        public var role: DeviceRole = .person
        /// A watcher's dependents; nil on a person's device.
        public var dependents: DependentsFeature.State?
        /// Who is told when the person needs someone; nil on a watcher.
        public var responders: RespondersFeature.State?

        /// The device's broker connection is up: what the dependents and the responders follow.
        var isBrokerConnected: Bool { mqtt?.connection == .connected }
        /// A watcher said "I'm on it" since the last check-in.
        public var helpComing: HelpComing?
        /// Messages for the operator that do not stop the device keeping its word, newest last.
        public var messages: [DeviceMessage] = []
        public var isRunning = false
        /// A load from the store failed: everything is loaded again once the store works.
        public var needsReload = false

        /// How many messages are kept at most (older ones drop off).
        public static let messageLimit = 10

        public init(checkIn: CheckInFeature.State, gpio: GPIOFeature.State) {
            self.checkIn = checkIn
            self.gpio = gpio
        }

        /// Everything that stops the device keeping its word right now, most serious first.
        public var conditions: [DeviceCondition] {
            var conditions: [DeviceCondition] = []
            if let problem = store.problem {
                conditions.append(DeviceCondition(DeviceCondition.Kind(problem.kind), problem.failure.message,
                                                  advice: problem.advice, since: problem.since))
            }
            if let failure = gpio.waitingFor {
                conditions.append(DeviceCondition(
                    .gpioUnavailable, "waiting for GPIO \(gpio.chipDescription), no button or LEDs until it is there: \(failure)",
                    advice: "check that the GPIO chip is present and its wiring (lifesignalctl doctor); the device carries on by itself when it is back"))
            }
            if let alert = checkIn.alert.unsaved {
                conditions.append(DeviceCondition(
                    .alertNotStored, "help alert of \(alert.at.wall.iso8601) NOT stored and NOT sent: the store cannot write",
                    advice: "it is stored and sent as soon as the store can write; call the people who look after this person meanwhile"))
            }
            if checkIn.alert.settings != nil, !checkIn.alert.unacknowledged.isEmpty {
                if let refusal = checkIn.alert.sendingRefused {
                    conditions.append(DeviceCondition(
                        .alertNotSent, "help alert NOT delivered: \(refusal)",
                        advice: "fix what the message names (the alert check's URL, the healthchecks API key, the uplink's token); "
                            + "the alert stays queued and is sent again at the next check-in, alert or restart"))
                } else if checkIn.alert.settings?.canDeliver != true {
                    conditions.append(DeviceCondition(
                        .alertNotSent, "help alert stored but NOT sent: nothing on this device can deliver it, so nobody was alerted",
                        advice: "configure [healthchecks] alert_url (or api_key_file) or [uplink] so alerts reach someone, "
                            + "or set [alert] enabled = false"))
                }
            }
            for upload in refusedUploads {
                conditions.append(DeviceCondition(
                    .uploadRefused, "\(upload.endpoint) refuses the \(upload.noun): \(upload.lastMessage ?? "no reason given")",
                    advice: "fix what it names (the token file, the URL, the check); the \(upload.noun) stay queued and are sent again at the next one or a restart",
                    isFault: false))
            }
            conditions += reachConditions
            if let mqtt = mqttCondition { conditions.append(mqtt) }
            if checkIn.localTimeUnknown {
                conditions.append(DeviceCondition(
                    .timeUnknown, "the local time is unknown: the wall clock has not been synchronised since the device started, "
                        + "so the daily windows cannot be placed",
                    advice: "restore the network so the clock synchronises; meanwhile the device asks for a press and declares "
                        + "overdue only once the longest gap the schedule allows has certainly passed"))
            } else if checkIn.elapsedTimeUnknown {
                conditions.append(DeviceCondition(
                    .timeUnknown, "the time since the last check-in is unknown: it was on an earlier boot and the wall clock is not synchronised",
                    advice: "press the button to check in; or restore the network so the clock synchronises"))
            }
            return conditions
        }

        /// Uploaders stopped by a refusal that retrying cannot cure.
        private var refusedUploads: [(noun: String, endpoint: String, lastMessage: String?)] {
            // Asked after every action: look at the statuses in place before copying anything.
            guard checkInUpload?.status == .stopped || healthchecksUpload?.status == .stopped
                || alertUpload?.status == .stopped || pingResponseUpload?.status == .stopped
                || healthchecksAlertUpload?.status == .stopped || eventUpload?.status == .stopped
                || healthchecksEventUpload?.status == .stopped else { return [] }
            var refused: [(noun: String, endpoint: String, lastMessage: String?)] = []
            if let upload = checkInUpload, upload.status == .stopped {
                refused.append((upload.noun, upload.endpoint, upload.lastMessage))
            }
            if let upload = healthchecksUpload, upload.status == .stopped {
                refused.append((upload.noun, upload.endpoint, upload.lastMessage))
            }
            if let upload = alertUpload, upload.status == .stopped { refused.append((upload.noun, upload.endpoint, upload.lastMessage)) }
            if let upload = pingResponseUpload, upload.status == .stopped {
                refused.append((upload.noun, upload.endpoint, upload.lastMessage))
            }
            if let upload = healthchecksAlertUpload, upload.status == .stopped {
                refused.append((upload.noun, upload.endpoint, upload.lastMessage))
            }
            for upload in [eventUpload, healthchecksEventUpload].compactMap({ $0 }) where upload.status == .stopped {
                refused.append((upload.noun, upload.endpoint, upload.lastMessage))
            }
            return refused
        }

        /// What the conditions are derived from, without their text: cheap to compare after every
        /// action, so the text is built only when a cause changed.
        public var conditionCauses: ConditionCauses {
            ConditionCauses(
                store: store.problem, gpio: gpio.waitingFor, alertUnsaved: checkIn.alert.unsaved?.id,
                alertUndelivered: alertUndelivered, alertRefusal: checkIn.alert.sendingRefused, timeUnknown: timeUnknown,
                refusedUploads: refusedUploads.map { "\($0.endpoint) \($0.noun) \($0.lastMessage ?? "")" },
                reach: reachCauses,
                mqtt: mqtt?.isUnavailable == true ? mqtt?.lastFailure?.message : nil,
                mqttFault: mqttOutageIsFault)
        }

        /// The device cannot keep its word: the LEDs show `fault`. Decided from the fault causes of
        /// `conditionCauses` alone, read straight from the state without building the others' text
        /// (it is asked after every action); `FaultAgreementTests` holds it in step with `conditions`.
        public var hasFault: Bool {
            store.problem != nil || gpio.waitingFor != nil || checkIn.alert.unsaved != nil || timeUnknown || mqttOutageIsFault
                || (alertUndelivered && (checkIn.alert.sendingRefused != nil || checkIn.alert.settings?.canDeliver != true))
        }

        // The causes `conditionCauses` and `hasFault` share, so the two cannot drift apart.
        private var alertUndelivered: Bool { checkIn.alert.settings != nil && !checkIn.alert.unacknowledged.isEmpty }
        private var timeUnknown: Bool { checkIn.elapsedTimeUnknown || checkIn.localTimeUnknown }
        private var mqttOutageIsFault: Bool { mqtt?.isUnavailable == true && mqtt?.outageIsFault == true }

        /// A check-in is being written. Until the store answers, what is not the LEDs (the log's
        /// lines, systemd's status line, the terminal's caption) waits, so that on the one thread
        /// that reduces actions nothing but the write stands between the release and the
        /// acknowledgement (docs/architecture.md).
        public var acknowledgementPending: Bool { checkIn.isCheckingIn }

        /// What the LEDs show: on battery, the calm indicators give way to `on_battery`; anything
        /// that asks something of the person (and a fault) shows as ever.
        public var indicator: Indicator { indicator(of: checkIn) }

        /// `checkIn`'s indicator with the on-battery overlay (the MQTT state asks it of the
        /// check-in state without its brief feedback).
        func indicator(of checkIn: CheckInFeature.State) -> Indicator {
            roleIndicator(own: withHelpComing(personIndicator(of: checkIn)))
        }

        private func personIndicator(of checkIn: CheckInFeature.State) -> Indicator {
            let indicator = checkIn.indicator(fault: hasFault)
            guard power.onBattery else { return indicator }
            switch indicator {
            case .checkedIn, .checkedInNotUploaded, .away: return .onBattery
            default: return indicator
            }
        }

        /// What the buzzer says (`[buzzer]`): the check-in feature's signal.
        public var buzzer: BuzzerSignal? { checkIn.buzzer }
    }
}

/// The inputs of `DeviceFeature.State.conditions`.
public struct ConditionCauses: Equatable, Sendable {
    public var store: StoreProblem?
    public var gpio: GPIOError?
    public var alertUnsaved: AlertID?
    public var alertUndelivered: Bool
    public var alertRefusal: String?
    public var timeUnknown: Bool
    public var refusedUploads: [String]
    /// Heartbeats refused for good, checks not kept in step (`DeviceFeature.State.reachCauses`).
    public var reach: [String] = []
    /// The MQTT broker's failure while it is away.
    public var mqtt: String? = nil
    public var mqttFault = false
}

extension DeviceCondition.Kind {
    init(_ kind: StoreProblem.Kind) {
        self = switch kind {
        case .cannotWrite: .storeCannotWrite
        case .fileMovedOrReplaced: .storeFileMoved
        case .schemaRefused: .storeSchemaRefused
        case .cannotOpen: .storeCannotOpen
        }
    }
}
