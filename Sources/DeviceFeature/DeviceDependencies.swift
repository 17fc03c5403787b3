public import CheckInModels
public import CheckInStoreClient
public import ComposableCore
public import DependentsClient
public import RespondersClient
public import DeviceClock
public import GPIOClient
public import MQTTClient
public import UplinkClient

/// Everything the device reaches outside its own state, as one value: the composition root builds
/// the device from it, so tests build the production graph with test clients. Live values come from
/// the configuration (`DeviceLive`); `failing` fails a test on any call it did not override.
public struct DeviceDependencies: Sendable {
    public var clock: DeviceClock
    /// A number in the range given (backoff jitter).
    public var random: @Sendable (ClosedRange<Int64>) -> Int64
    /// New ids for check-ins, alerts and ping answers (random UUIDs).
    public var newID: @Sendable () -> CheckInID
    public var gpio: GPIOClient
    public var store: StoreClients
    /// The LifeSignal backend; nil on a device without `[uplink]`.
    public var backend: UplinkClient?
    /// `[healthchecks]`: the check-in check and the heartbeat check, each nil when not configured.
    public var healthchecks: HealthchecksClients?
    public var wallClock: WallClockChangesClient
    public var network: NetworkChangesClient
    /// Local time for daily windows and quiet hours (the C library over the system's tzdata).
    public var timeZone: TimeZoneClient
    /// Stops the daemon cleanly, as SIGTERM does (a low battery asks for it).
    public var requestStop: @Sendable () -> Void
    /// The MQTT broker (`[mqtt]`); nil on a device without one.
    public var mqtt: MQTTClient? = nil
    /// The machine's host name: a watcher signs its pings with it unless `[device] name` is set.
    public var hostName = "watcher"
    /// A watcher's polled sources by kind (`backend`, `healthchecks`); empty on a person's device.
    public var dependentSources: [String: DependentsClient] = [:]
    /// The polled sources of the person's responders, by kind (`backend`, `healthchecks`): only those configured.
    public var responderSources: [String: RespondersClient] = [:]

    public init(
        clock: DeviceClock, random: @escaping @Sendable (ClosedRange<Int64>) -> Int64,
        newID: @escaping @Sendable () -> CheckInID, gpio: GPIOClient, store: StoreClients, backend: UplinkClient?,
        healthchecks: HealthchecksClients?, wallClock: WallClockChangesClient, network: NetworkChangesClient,
        timeZone: TimeZoneClient = .failing,
        requestStop: @escaping @Sendable () -> Void = { UnexpectedCall.report("DeviceDependencies.requestStop") }
    ) {
        self.timeZone = timeZone
        self.requestStop = requestStop
        self.clock = clock
        self.random = random
        self.newID = newID
        self.gpio = gpio
        self.store = store
        self.backend = backend
        self.healthchecks = healthchecks
        self.wallClock = wallClock
        self.network = network
    }

    /// Every call fails the test: a test overrides what it means to use.
    public static let failing = DeviceDependencies(
        clock: .failing,
        random: { range in
            UnexpectedCall.report("DeviceDependencies.random")
            return range.lowerBound
        },
        newID: {
            UnexpectedCall.report("DeviceDependencies.newID")
            return CheckInID(high: 0, low: 0)
        },
        gpio: .failing, store: .failing, backend: nil, healthchecks: nil, wallClock: .failing, network: .failing)
}

/// The store as each part of the device sees it.
public struct StoreClients: Sendable {
    public var checkIns: CheckInStoreClient
    public var alerts: AlertStoreClient
    public var notifications: NotificationStoreClient
    public var maintenance: StoreMaintenanceClient
    /// Check-ins waiting for the backend.
    public var checkInQueue: UploadQueueClient<CheckInRecord>
    /// Help alerts waiting for the backend.
    public var alertQueue: UploadQueueClient<AlertRecord>
    /// Answers to pings waiting for the backend.
    public var pingResponseQueue: UploadQueueClient<PingResponse>
    /// Check-ins waiting for the healthchecks check (a delivery target of its own).
    public var healthchecksQueue: UploadQueueClient<CheckInRecord>
    /// Help alerts waiting for the healthchecks alert check (a delivery target of its own).
    public var healthchecksAlertQueue: UploadQueueClient<AlertRecord>
    /// The device's own events (power, restarts) and its run mark.
    public var powerEvents: PowerEventStoreClient = .failing
    /// Power events waiting for the backend.
    public var powerEventQueue: UploadQueueClient<PowerEvent> = .failing("powerEventQueue")
    /// Power events waiting for the healthchecks check-in check's log.
    public var healthchecksPowerEventQueue: UploadQueueClient<PowerEvent> = .failing("healthchecksPowerEventQueue")
    /// Events for the MQTT broker: stored as they happen, published in order.
    public var deviceEvents: DeviceEventStoreClient = .failing
    public var deviceEventQueue: UploadQueueClient<DeviceEvent> = .failing("deviceEventQueue")
    /// A watcher's dependents added by code, and its sort option.
    public var dependents: DependentStoreClient = .failing
    /// The watchers the person removed from their responders.
    public var responders: ResponderStoreClient = .failing

    public init(
        checkIns: CheckInStoreClient, alerts: AlertStoreClient, notifications: NotificationStoreClient,
        maintenance: StoreMaintenanceClient, checkInQueue: UploadQueueClient<CheckInRecord>,
        alertQueue: UploadQueueClient<AlertRecord>, pingResponseQueue: UploadQueueClient<PingResponse>,
        healthchecksQueue: UploadQueueClient<CheckInRecord>,
        healthchecksAlertQueue: UploadQueueClient<AlertRecord> = .failing("healthchecksAlertQueue")
    ) {
        self.checkIns = checkIns
        self.alerts = alerts
        self.notifications = notifications
        self.maintenance = maintenance
        self.checkInQueue = checkInQueue
        self.alertQueue = alertQueue
        self.pingResponseQueue = pingResponseQueue
        self.healthchecksQueue = healthchecksQueue
        self.healthchecksAlertQueue = healthchecksAlertQueue
    }

    public static let failing = StoreClients(
        checkIns: .failing, alerts: .failing, notifications: .failing, maintenance: .failing,
        checkInQueue: .failing("checkInQueue"), alertQueue: .failing("alertQueue"),
        pingResponseQueue: .failing("pingResponseQueue"), healthchecksQueue: .failing("healthchecksQueue"))
}

/// A healthchecks.io-compatible instance: the check pinged per check-in, the heartbeat check, the
/// help-alert check (`sendAlert`: a `fail` signal), and the management API that keeps the
/// device's own checks in step (with `[healthchecks] api_key_file`).
public struct HealthchecksClients: Sendable {
    public var checkIns: UplinkClient?
    public var heartbeat: UplinkClient?
    public var alert: UplinkClient?
    public var management: HealthchecksManagementClient?

    public init(checkIns: UplinkClient?, heartbeat: UplinkClient?, alert: UplinkClient? = nil,
                management: HealthchecksManagementClient? = nil) {
        self.checkIns = checkIns
        self.heartbeat = heartbeat
        self.alert = alert
        self.management = management
    }
}
