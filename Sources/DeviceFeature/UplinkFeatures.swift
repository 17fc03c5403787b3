import Backoff
import CheckInModels
import ComposableCore
import DeviceConfig
import HealthchecksSyncFeature
import HeartbeatFeature
import PingListenerFeature
import SettingsSyncFeature
import UplinkClient
import UploadFeature

extension DeviceFeature {
    /// How the uplink's targets are shown in status and logs.
    public struct Endpoints: Hashable, Sendable {
        public var backend: String
        public var healthchecksCheckIns: String
        public var healthchecksHeartbeat: String
        public var healthchecksAlert: String
        /// The healthchecks instance whose management API keeps the device's checks.
        public var healthchecksSite: String
        /// The MQTT broker ("mqtt://host:port") and the device's id on it.
        public var mqttBroker = "MQTT broker"
        public var mqttDeviceID = "lifesignal"
        /// The machine's host name: a watcher signs its pings with it unless `[device] name` says otherwise.
        public var hostName = "watcher"

        public init(backend: String = "backend", healthchecksCheckIns: String = "healthchecks",
                    healthchecksHeartbeat: String = "healthchecks heartbeat", healthchecksAlert: String = "healthchecks alert",
                    healthchecksSite: String = "healthchecks") {
            self.backend = backend
            self.healthchecksCheckIns = healthchecksCheckIns
            self.healthchecksHeartbeat = healthchecksHeartbeat
            self.healthchecksAlert = healthchecksAlert
            self.healthchecksSite = healthchecksSite
        }
    }
}

/// The uplink's parts, each present only where its target is configured: an uploader per queue,
/// the heartbeats, the ping listener and the settings sync.
struct UplinkFeatures {
    let checkInUpload: UploadFeature<CheckInRecord>?
    let alertUpload: UploadFeature<AlertRecord>?
    let pingResponseUpload: UploadFeature<PingResponse>?
    let healthchecksUpload: UploadFeature<CheckInRecord>?
    let backendHeartbeat: HeartbeatFeature?
    let healthchecksHeartbeat: HeartbeatFeature?
    let pingListener: PingListenerFeature?
    let settingsSync: SettingsSyncFeature?
    let healthchecksAlertUpload: UploadFeature<AlertRecord>?
    let healthchecksSync: HealthchecksSyncFeature?
    /// The device's own events (power, restarts) to the backend and to the healthchecks check-in check.
    let eventUpload: UploadFeature<PowerEvent>?
    let healthchecksEventUpload: UploadFeature<PowerEvent>?

    /// Help alerts are urgent: their retries never wait longer than this, whatever `retry_max` says.
    static let longestAlertRetry = Duration.seconds(60)

    init(configuration: DeviceConfiguration, dependencies: DeviceDependencies) {
        let clock = dependencies.clock, random = dependencies.random, store = dependencies.store
        if let backend = dependencies.backend, let uplink = configuration.uplink {
            let backoff = Backoff.network(cap: uplink.retryMax)
            checkInUpload = UploadFeature(queue: store.checkInQueue, request: backend.uploadBatch, clock: clock,
                                          backoff: backoff, random: random, batchSize: uplink.batchSize)
            alertUpload = UploadFeature(
                queue: store.alertQueue,
                request: Self.oneAlert(backend),
                clock: clock, backoff: Backoff.network(cap: min(uplink.retryMax, Self.longestAlertRetry)),
                random: random, batchSize: 1)
            pingResponseUpload = UploadFeature(
                queue: store.pingResponseQueue,
                request: { batch in await backend.respondToPings(batch).map { UploadOutcome(acknowledged: $0) } },
                clock: clock, backoff: backoff, random: random, batchSize: uplink.batchSize)
            backendHeartbeat = HeartbeatFeature(uplink: backend, clock: clock, queueDepth: {
                (try? await store.checkInQueue.depth()) ?? 0
            })
            pingListener = PingListenerFeature(uplink: backend, store: store.checkIns, clock: clock, backoff: backoff, random: random)
            settingsSync = SettingsSyncFeature(uplink: backend, store: store.checkIns)
            eventUpload = UploadFeature(queue: store.powerEventQueue, request: Self.oneEvent(backend), clock: clock,
                                        backoff: backoff, random: random, batchSize: 1)
        } else {
            (checkInUpload, alertUpload, pingResponseUpload, backendHeartbeat, pingListener, settingsSync) =
                (nil, nil, nil, nil, nil, nil)
            eventUpload = nil
        }
        if let settings = configuration.healthchecks, let healthchecks = dependencies.healthchecks {
            healthchecksUpload = healthchecks.checkIns.map { client in
                UploadFeature(queue: store.healthchecksQueue, request: client.uploadBatch, clock: clock,
                              backoff: .network(cap: settings.retryMax), random: random, batchSize: 20)
            }
            // The heartbeat tells how far behind the device is: the backend's queue if there is one.
            let depth = dependencies.backend != nil ? store.checkInQueue : store.healthchecksQueue
            healthchecksHeartbeat = healthchecks.heartbeat.map { client in
                HeartbeatFeature(uplink: client, clock: clock, queueDepth: { (try? await depth.depth()) ?? 0 })
            }
            healthchecksAlertUpload = healthchecks.alert.map { client in
                UploadFeature(queue: store.healthchecksAlertQueue, request: Self.oneAlert(client),
                              clock: clock, backoff: .network(cap: min(settings.retryMax, Self.longestAlertRetry)),
                              random: random, batchSize: 1)
            }
            healthchecksEventUpload = healthchecks.checkIns.map { client in
                UploadFeature(queue: store.healthchecksPowerEventQueue, request: Self.oneEvent(client), clock: clock,
                              backoff: .network(cap: settings.retryMax), random: random, batchSize: 1)
            }
            if let client = healthchecks.management, let management = settings.management {
                healthchecksSync = HealthchecksSyncFeature(
                    management: client, clock: clock, backoff: .network(cap: settings.retryMax), random: random,
                    heartbeat: settings.heartbeat, slugPrefix: management.slugPrefix)
            } else {
                healthchecksSync = nil
            }
        } else {
            healthchecksUpload = nil
            healthchecksHeartbeat = nil
            healthchecksAlertUpload = nil
            healthchecksSync = nil
            healthchecksEventUpload = nil
        }
    }

    /// One device event per request.
    static func oneEvent(_ client: UplinkClient) -> @Sendable ([PowerEvent]) async -> Result<UploadOutcome, UplinkFailure> {
        one(client.sendEvent)
    }

    /// One help alert per request (the uploaders of alerts take batches of one).
    static func oneAlert(_ client: UplinkClient) -> @Sendable ([AlertRecord]) async -> Result<UploadOutcome, UplinkFailure> {
        one(client.sendAlert)
    }

    /// A request per item, for uploaders that take batches of one.
    static func one<Item: Sendable>(_ send: @escaping @Sendable (Item) async -> Result<[CheckInID], UplinkFailure>)
        -> @Sendable ([Item]) async -> Result<UploadOutcome, UplinkFailure> {
        { batch in
            guard let item = batch.first else { return .success(UploadOutcome(acknowledged: [])) }
            return await send(item).map { UploadOutcome(acknowledged: $0) }
        }
    }

    static func initialState(_ configuration: DeviceConfiguration, endpoints: DeviceFeature.Endpoints,
                             into state: inout DeviceFeature.State) {
        if let uplink = configuration.uplink {
            state.checkInUpload = .init(noun: "check-ins", endpoint: endpoints.backend)
            state.alertUpload = .init(noun: "alerts", endpoint: endpoints.backend)
            state.pingResponseUpload = .init(noun: "ping responses", endpoint: endpoints.backend)
            state.backendHeartbeat = .init(endpoint: endpoints.backend, period: uplink.heartbeat)
            state.pingListener = .init()
            state.settingsSync = .init()
            state.eventUpload = .init(noun: "device events", endpoint: endpoints.backend)
        }
        if let healthchecks = configuration.healthchecks {
            if healthchecks.hasCheckInCheck {
                state.healthchecksUpload = .init(noun: "check-ins", endpoint: endpoints.healthchecksCheckIns)
                state.healthchecksEventUpload = .init(noun: "device events", endpoint: endpoints.healthchecksCheckIns)
            }
            if healthchecks.hasHeartbeatCheck {
                state.healthchecksHeartbeat = .init(endpoint: endpoints.healthchecksHeartbeat, period: healthchecks.heartbeat)
            }
            if healthchecks.hasAlertCheck {
                state.healthchecksAlertUpload = .init(noun: "alerts", endpoint: endpoints.healthchecksAlert)
            }
            if healthchecks.management != nil {
                state.healthchecksSync = .init(endpoint: endpoints.healthchecksSite)
            }
        }
    }

    func reduce(into state: inout DeviceFeature.State, action: DeviceFeature.Action) -> Effect<DeviceFeature.Action> {
        switch action {
        case .checkInUpload:
            ScopeIfPresent(state: \.checkInUpload, action: .checkInUpload, namespace: "check-in-upload", child: checkInUpload)
                .reduce(into: &state, action: action)
        case .alertUpload:
            ScopeIfPresent(state: \.alertUpload, action: .alertUpload, namespace: "alert-upload", child: alertUpload)
                .reduce(into: &state, action: action)
        case .pingResponseUpload:
            ScopeIfPresent(state: \.pingResponseUpload, action: .pingResponseUpload, namespace: "ping-response-upload",
                           child: pingResponseUpload)
                .reduce(into: &state, action: action)
        case .healthchecksUpload:
            ScopeIfPresent(state: \.healthchecksUpload, action: .healthchecksUpload, namespace: "healthchecks-upload",
                           child: healthchecksUpload)
                .reduce(into: &state, action: action)
        case .backendHeartbeat:
            ScopeIfPresent(state: \.backendHeartbeat, action: .backendHeartbeat, namespace: "backend-heartbeat",
                           child: backendHeartbeat)
                .reduce(into: &state, action: action)
        case .healthchecksHeartbeat:
            ScopeIfPresent(state: \.healthchecksHeartbeat, action: .healthchecksHeartbeat, namespace: "healthchecks-heartbeat",
                           child: healthchecksHeartbeat)
                .reduce(into: &state, action: action)
        case .pingListener:
            ScopeIfPresent(state: \.pingListener, action: .pingListener, namespace: "ping-listener", child: pingListener)
                .reduce(into: &state, action: action)
        case .settingsSync:
            ScopeIfPresent(state: \.settingsSync, action: .settingsSync, namespace: "settings-sync", child: settingsSync)
                .reduce(into: &state, action: action)
        case .healthchecksAlertUpload:
            ScopeIfPresent(state: \.healthchecksAlertUpload, action: .healthchecksAlertUpload, namespace: "healthchecks-alert-upload",
                           child: healthchecksAlertUpload)
                .reduce(into: &state, action: action)
        case .healthchecksSync:
            ScopeIfPresent(state: \.healthchecksSync, action: .healthchecksSync, namespace: "healthchecks-sync", child: healthchecksSync)
                .reduce(into: &state, action: action)
        case .eventUpload:
            ScopeIfPresent(state: \.eventUpload, action: .eventUpload, namespace: "event-upload", child: eventUpload)
                .reduce(into: &state, action: action)
        case .healthchecksEventUpload:
            ScopeIfPresent(state: \.healthchecksEventUpload, action: .healthchecksEventUpload, namespace: "healthchecks-event-upload",
                           child: healthchecksEventUpload)
                .reduce(into: &state, action: action)
        default:
            .none
        }
    }
}

extension ActionCase where Parent == DeviceFeature.Action, Child == UploadFeature<CheckInRecord>.Action {
    static let checkInUpload = ActionCase(embed: Parent.checkInUpload,
                                          extract: { if case let .checkInUpload(action) = $0 { action } else { nil } })
    static let healthchecksUpload = ActionCase(embed: Parent.healthchecksUpload,
                                               extract: { if case let .healthchecksUpload(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == UploadFeature<AlertRecord>.Action {
    static let alertUpload = ActionCase(embed: Parent.alertUpload,
                                        extract: { if case let .alertUpload(action) = $0 { action } else { nil } })
    static let healthchecksAlertUpload = ActionCase(
        embed: Parent.healthchecksAlertUpload, extract: { if case let .healthchecksAlertUpload(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == HealthchecksSyncFeature.Action {
    static let healthchecksSync = ActionCase(embed: Parent.healthchecksSync,
                                             extract: { if case let .healthchecksSync(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == UploadFeature<PingResponse>.Action {
    static let pingResponseUpload = ActionCase(embed: Parent.pingResponseUpload,
                                               extract: { if case let .pingResponseUpload(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == HeartbeatFeature.Action {
    static let backendHeartbeat = ActionCase(embed: Parent.backendHeartbeat,
                                             extract: { if case let .backendHeartbeat(action) = $0 { action } else { nil } })
    static let healthchecksHeartbeat = ActionCase(embed: Parent.healthchecksHeartbeat,
                                                  extract: { if case let .healthchecksHeartbeat(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == PingListenerFeature.Action {
    static let pingListener = ActionCase(embed: Parent.pingListener,
                                         extract: { if case let .pingListener(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == SettingsSyncFeature.Action {
    static let settingsSync = ActionCase(embed: Parent.settingsSync,
                                         extract: { if case let .settingsSync(action) = $0 { action } else { nil } })
}

extension ActionCase where Parent == DeviceFeature.Action, Child == UploadFeature<PowerEvent>.Action {
    static let eventUpload = ActionCase(embed: Parent.eventUpload,
                                        extract: { if case let .eventUpload(action) = $0 { action } else { nil } })
    static let healthchecksEventUpload = ActionCase(
        embed: Parent.healthchecksEventUpload, extract: { if case let .healthchecksEventUpload(action) = $0 { action } else { nil } })
}
