public import CheckInModels
import ComposableCore

/// The device's connection to the LifeSignal backend, as an injectable value.
///
/// Every call finishes with a result, never hangs past its timeout and never throws: a failure says
/// whether retrying later can help (`UplinkFailure.Kind`). Nil-free: a device without an uplink
/// simply has no `UplinkClient`.
public struct UplinkClient: Sendable {
    /// Uploads a batch of check-ins and returns the ids the backend acknowledged (it has stored
    /// them). Ids not acknowledged stay queued and are sent again; the backend de-duplicates by id.
    public var uploadCheckIns: @Sendable (_ batch: [CheckInRecord]) async -> Result<[CheckInID], UplinkFailure>
    /// The settings as the backend has them (the app's `checkInSettingsResponse`).
    public var fetchSettings: @Sendable () async -> Result<RemoteSettings, UplinkFailure>
    /// Offers the device's settings; the backend keeps them only if their version is newer.
    public var pushSettings: @Sendable (RemoteSettings) async -> Result<SettingsPushOutcome, UplinkFailure>
    /// Notifications created or changed since `after` (the cursor of the last page; nil = all).
    public var fetchNotifications: @Sendable (_ after: String?) async -> Result<NotificationPage, UplinkFailure>
    /// Sends changes made on the device; returns the change ids the backend acknowledged (applied).
    public var pushNotificationChanges: @Sendable ([NotificationChange]) async -> Result<[String], UplinkFailure>
    /// Long poll for responders' pings (`pendingPings(after, wait)`): pings the user has not answered,
    /// created after the cursor `after` (nil: all of them). The backend holds the request until a
    /// ping arrives or `wait` has passed, so the request's own timeout is longer than `wait`.
    public var pendingPings: @Sendable (_ after: String?, _ wait: Duration) async -> Result<PingPoll, UplinkFailure>
    /// Uploads the user's answers to pings and returns the ids the backend acknowledged (like check-ins).
    public var respondToPings: @Sendable (_ batch: [PingResponse]) async -> Result<[CheckInID], UplinkFailure>
    /// Sends one help alert (`POST /v1/alerts`) and returns the ids the backend acknowledged (it
    /// has stored the alert and will notify the responders). Idempotent by id, like check-ins.
    public var sendAlert: @Sendable (AlertRecord) async -> Result<[AlertID], UplinkFailure>
    /// Where the client talks to, for status and logs (never includes the token).
    public var endpoint: String
    /// Like `uploadCheckIns`, but also returns the ids the target refused for good (per-item
    /// rejection). Defaults to `uploadCheckIns` with no refusals.
    public var uploadBatch: @Sendable (_ batch: [CheckInRecord]) async -> Result<UploadOutcome, UplinkFailure>
    /// Tells the target the device is alive (`POST /v1/heartbeat`).
    public var sendHeartbeat: @Sendable (DeviceHeartbeat) async -> Result<Void, UplinkFailure>
    /// Tells the target about one of the device's own events (power, a restart): `POST /v1/events`
    /// on the backend, a `/log` entry on a healthchecks check. Returns the ids it acknowledged.
    public var sendEvent: @Sendable (PowerEvent) async -> Result<[CheckInID], UplinkFailure> = { _ in
        .failure(UplinkFailure(.permanent, "device events are not available on this uplink"))
    }

    public init(
        endpoint: String,
        uploadCheckIns: @escaping @Sendable (_ batch: [CheckInRecord]) async -> Result<[CheckInID], UplinkFailure>,
        fetchSettings: @escaping @Sendable () async -> Result<RemoteSettings, UplinkFailure> = {
            .failure(UplinkFailure(.permanent, "settings sync is not available on this uplink"))
        },
        pushSettings: @escaping @Sendable (RemoteSettings) async -> Result<SettingsPushOutcome, UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "settings sync is not available on this uplink"))
        },
        fetchNotifications: @escaping @Sendable (_ after: String?) async -> Result<NotificationPage, UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "notifications sync is not available on this uplink"))
        },
        pushNotificationChanges: @escaping @Sendable ([NotificationChange]) async -> Result<[String], UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "notifications sync is not available on this uplink"))
        },
        pendingPings: @escaping @Sendable (_ after: String?, _ wait: Duration) async -> Result<PingPoll, UplinkFailure> = { _, _ in
            .failure(UplinkFailure(.permanent, "pings are not available on this uplink"))
        },
        respondToPings: @escaping @Sendable (_ batch: [PingResponse]) async -> Result<[CheckInID], UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "ping responses are not available on this uplink"))
        },
        sendAlert: @escaping @Sendable (AlertRecord) async -> Result<[AlertID], UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "help alerts are not available on this uplink"))
        },
        uploadBatch: (@Sendable (_ batch: [CheckInRecord]) async -> Result<UploadOutcome, UplinkFailure>)? = nil,
        sendHeartbeat: @escaping @Sendable (DeviceHeartbeat) async -> Result<Void, UplinkFailure> = { _ in
            .failure(UplinkFailure(.permanent, "heartbeats are not available on this uplink"))
        }
    ) {
        self.sendAlert = sendAlert
        self.endpoint = endpoint
        self.uploadCheckIns = uploadCheckIns
        self.fetchSettings = fetchSettings
        self.pushSettings = pushSettings
        self.fetchNotifications = fetchNotifications
        self.pushNotificationChanges = pushNotificationChanges
        self.pendingPings = pendingPings
        self.respondToPings = respondToPings
        self.uploadBatch = uploadBatch ?? { batch in await uploadCheckIns(batch).map { UploadOutcome(acknowledged: $0) } }
        self.sendHeartbeat = sendHeartbeat
    }
}

extension UplinkClient {
    /// Every call is reported as unexpected (and fails permanently): tests override what they use.
    public static func failing(endpoint: String = "test backend") -> UplinkClient {
        UplinkClient(
            endpoint: endpoint,
            uploadCheckIns: { _ in .failure(.unexpected("UplinkClient.uploadCheckIns")) },
            fetchSettings: { .failure(.unexpected("UplinkClient.fetchSettings")) },
            pushSettings: { _ in .failure(.unexpected("UplinkClient.pushSettings")) },
            fetchNotifications: { _ in .failure(.unexpected("UplinkClient.fetchNotifications")) },
            pushNotificationChanges: { _ in .failure(.unexpected("UplinkClient.pushNotificationChanges")) },
            pendingPings: { _, _ in .failure(.unexpected("UplinkClient.pendingPings")) },
            respondToPings: { _ in .failure(.unexpected("UplinkClient.respondToPings")) },
            sendAlert: { _ in .failure(.unexpected("UplinkClient.sendAlert")) },
            uploadBatch: { _ in .failure(.unexpected("UplinkClient.uploadBatch")) },
            sendHeartbeat: { _ in .failure(.unexpected("UplinkClient.sendHeartbeat")) })
            .withSendEvent { _ in .failure(.unexpected("UplinkClient.sendEvent")) }
    }

    /// This client, sending device events with `send`.
    public func withSendEvent(_ send: @escaping @Sendable (PowerEvent) async -> Result<[CheckInID], UplinkFailure>) -> UplinkClient {
        var client = self
        client.sendEvent = send
        return client
    }
}

extension UplinkFailure {
    /// Reports an unexpected call to a test value and returns the failure it answers with.
    public static func unexpected(_ name: String) -> UplinkFailure {
        UnexpectedCall.report(name)
        return UplinkFailure(.permanent, "\(name) is not implemented in this test")
    }
}

/// Check-in settings with the version that decides which side's are newer.
public struct RemoteSettings: Hashable, Sendable {
    public var settings: CheckInSettings
    public var version: Int64
    /// Away mode, when the settings carry it.
    public var away: AwayPlan?

    public init(settings: CheckInSettings, version: Int64, away: AwayPlan? = nil) {
        self.settings = settings
        self.version = version
        self.away = away
    }
}

/// What the backend did with settings the device offered.
public enum SettingsPushOutcome: Hashable, Sendable {
    /// Stored: the device's settings are now the backend's.
    case accepted(RemoteSettings)
    /// Refused because the backend's version is the same or newer: these are its settings.
    case backendIsNewer(RemoteSettings)
}

/// Why a request to the backend failed, classified for the retry decision.
public struct UplinkFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// Retrying later can help: no connection, connection reset, timeout, 408, 429, 5xx.
        case transient
        /// Retrying the same request cannot help until something changes (token, URL, TLS trust,
        /// server version): 4xx other than 408/429, a reply the device cannot read.
        case permanent
    }

    public var kind: Kind
    /// What happened, with the server's own message when it sent one. Never contains the token.
    public var message: String
    /// The HTTP status, when a response arrived.
    public var httpStatus: Int?
    /// The server's `Retry-After`, when it sent one (seconds form).
    public var retryAfter: Duration?

    public init(_ kind: Kind, _ message: String, httpStatus: Int? = nil, retryAfter: Duration? = nil) {
        self.kind = kind
        self.message = message
        self.httpStatus = httpStatus
        self.retryAfter = retryAfter
    }

    public var description: String { message }

    /// The classification of an HTTP status that is not a success (RFC 9110 §15).
    public static func kind(ofHTTPStatus status: Int) -> Kind {
        switch status {
        case 408, 429, 500...599: .transient
        default: .permanent
        }
    }
}
