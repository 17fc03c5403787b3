public import CheckInModels
public import MQTTClient
public import UploadFeature

extension MQTTFeature {
    /// The broker connection, what was published on it, and the events waiting for it.
    public struct State: Equatable, Sendable {
        public let identity: MQTTIdentity
        /// "mqtt://host:port" (no credentials), for status and logs.
        public let broker: String
        /// MQTT is the only way this device can tell anyone anything (no uplink, no healthchecks):
        /// an outage longer than `faultGrace` is a fault on the LEDs.
        public let isOnlyWayToReachAnyone: Bool

        public var isRunning = false
        public var connection: Connection = .stopped
        public var consecutiveFailures = 0
        /// Why the last attempt failed or the connection dropped; nil once connected.
        public var lastFailure: MQTTFailure?
        /// Since when the broker has been away (the first failure after being connected or starting).
        public var unavailableSince: WallTime?
        /// The outage has lasted `faultGrace` and nobody else can be told: a fault.
        public var outageIsFault = false
        public var lastConnected: WallTime?
        /// When the next attempt is due (`waitingToRetry` only).
        public var nextRetry: WallTime?
        public var retryDelay: Duration?
        /// The broker refused the subscription to the commands (an ACL): they cannot arrive.
        public var subscriptionProblem: String?

        /// A watcher's dependents' topics (their availability and state).
        public var peerTopics: [String] = []
        /// The broker refused the subscription to a dependent's topics (an ACL).
        public var peerSubscriptionProblem: String?

        /// Watchers the person removed (by MQTT device id): their commands are refused.
        public var refusedWatchers: Set<String> = []

        /// The device's state as the device feature last told it.
        public var device: MQTTDeviceState?
        /// What `<base>/state` holds from this connection; nil until published on it.
        public var publishedState: MQTTDeviceState?
        /// Messages carrying the state on their way to the broker (an announcement, or the state
        /// alone): a changed state waits until none is, so the broker retains the newest.
        public var statePublishesInFlight = 0

        public var commandsAccepted = 0
        public var commandsRefused = 0
        public var lastRefusal: String?
        /// When the last remote check-in was taken (monotonic), for the rate limit.
        public var lastRemoteCheckIn: Duration?

        /// The events' way to the broker: an uploader over the stored queue, running while connected.
        public var events: UploadFeature<DeviceEvent>.State

        public init(identity: MQTTIdentity, broker: String, isOnlyWayToReachAnyone: Bool) {
            self.identity = identity
            self.broker = broker
            self.isOnlyWayToReachAnyone = isOnlyWayToReachAnyone
            events = UploadFeature<DeviceEvent>.State(noun: "MQTT events", endpoint: broker)
        }

        /// The broker is away after at least one failed attempt: a condition (a fault only when
        /// `outageIsFault`).
        public var isUnavailable: Bool {
            connection != .connected && consecutiveFailures > 0
        }
    }

    public enum Connection: String, Equatable, Sendable {
        /// Not started, or stopped at shutdown.
        case stopped
        case connecting
        case connected
        /// An attempt failed or the connection dropped; the next attempt waits out the backoff.
        case waitingToRetry = "waiting_to_retry"
    }
}
