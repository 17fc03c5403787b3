public import CheckInModels
import ComposableCore

/// The device's durable memory: check-ins, their upload state and the settings.
///
/// Every call that returns has reached stable storage (`record` returns only once the check-in's
/// transaction is durable); every failure is a `StoreFailure` saying what is wrong.
public struct CheckInStoreClient: Sendable {
    /// Durably stores a new check-in and returns it as stored.
    public var record: @Sendable (NewCheckIn) async throws(StoreFailure) -> CheckInRecord
    /// The most recent check-ins, newest first.
    public var history: @Sendable (_ limit: Int) async throws(StoreFailure) -> [CheckInRecord]
    /// The stored settings, or nil on a fresh device.
    public var loadSettings: @Sendable () async throws(StoreFailure) -> StoredSettings?
    public var saveSettings: @Sendable (StoredSettings) async throws(StoreFailure) -> Void
    /// How many check-ins wait to be uploaded.
    public var pendingUploadCount: @Sendable () async throws(StoreFailure) -> Int
    /// Once the wall clock is synchronised: check-ins of `now`'s boot stamped with an unsynchronised
    /// wall clock get wall = now.wall − (now.uptime − their uptime) and count as synchronised.
    /// Returns how many were changed.
    public var reanchorWallTimes: @Sendable (_ now: DeviceInstant) async throws(StoreFailure) -> Int
    /// Durably stores a check-in AND the responses to pings it answers in one transaction (the
    /// app's `respondToPing`): a check-in is never acknowledged while its responses could be lost.
    public var recordAnsweringPings: @Sendable (NewCheckIn, [PingResponse]) async throws(StoreFailure) -> CheckInRecord
    /// Keeps pings received from the backend (known ones are left alone) and returns all still pending.
    public var savePings: @Sendable ([PendingPing]) async throws(StoreFailure) -> [PendingPing]
    /// The pings no press has answered yet, oldest first.
    public var pendingPings: @Sendable () async throws(StoreFailure) -> [PendingPing]
    /// Removes pings withdrawn before anyone answered them (answered ones are kept).
    public var withdrawPings: @Sendable ([String]) async throws(StoreFailure) -> Void
    /// Away mode: stores a new period (ending a running one, `replaced`) and, when given, the
    /// settings that now carry it, in one transaction.
    public var startAway: @Sendable (AwayPeriod, StoredSettings?) async throws(StoreFailure) -> Void
    /// Stores how an away period ended (and, when given, the settings without it) in one transaction.
    public var endAway: @Sendable (AwayPeriod, StoredSettings?) async throws(StoreFailure) -> Void
    /// The most recent away periods, newest first.
    public var awayPeriods: @Sendable (_ limit: Int) async throws(StoreFailure) -> [AwayPeriod]

    public init(
        record: @escaping @Sendable (NewCheckIn) async throws(StoreFailure) -> CheckInRecord,
        history: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [CheckInRecord],
        loadSettings: @escaping @Sendable () async throws(StoreFailure) -> StoredSettings?,
        saveSettings: @escaping @Sendable (StoredSettings) async throws(StoreFailure) -> Void,
        pendingUploadCount: @escaping @Sendable () async throws(StoreFailure) -> Int,
        reanchorWallTimes: @escaping @Sendable (_ now: DeviceInstant) async throws(StoreFailure) -> Int,
        recordAnsweringPings: @escaping @Sendable (NewCheckIn, [PingResponse]) async throws(StoreFailure) -> CheckInRecord,
        savePings: @escaping @Sendable ([PendingPing]) async throws(StoreFailure) -> [PendingPing],
        pendingPings: @escaping @Sendable () async throws(StoreFailure) -> [PendingPing],
        startAway: @escaping @Sendable (AwayPeriod, StoredSettings?) async throws(StoreFailure) -> Void = { _, _ throws(StoreFailure) in
            throw .unexpected("CheckInStoreClient.startAway")
        },
        endAway: @escaping @Sendable (AwayPeriod, StoredSettings?) async throws(StoreFailure) -> Void = { _, _ throws(StoreFailure) in
            throw .unexpected("CheckInStoreClient.endAway")
        },
        awayPeriods: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [AwayPeriod] = { _ throws(StoreFailure) in
            throw .unexpected("CheckInStoreClient.awayPeriods")
        },
        withdrawPings: @escaping @Sendable ([String]) async throws(StoreFailure) -> Void = { _ throws(StoreFailure) in
            throw .unexpected("CheckInStoreClient.withdrawPings")
        }
    ) {
        self.withdrawPings = withdrawPings
        self.record = record
        self.history = history
        self.loadSettings = loadSettings
        self.saveSettings = saveSettings
        self.pendingUploadCount = pendingUploadCount
        self.reanchorWallTimes = reanchorWallTimes
        self.recordAnsweringPings = recordAnsweringPings
        self.savePings = savePings
        self.pendingPings = pendingPings
        self.startAway = startAway
        self.endAway = endAway
        self.awayPeriods = awayPeriods
    }
}

extension CheckInStoreClient {
    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = CheckInStoreClient(
        record: { _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.record") },
        history: { _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.history") },
        loadSettings: { () throws(StoreFailure) in throw .unexpected("CheckInStoreClient.loadSettings") },
        saveSettings: { _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.saveSettings") },
        pendingUploadCount: { () throws(StoreFailure) in throw .unexpected("CheckInStoreClient.pendingUploadCount") },
        reanchorWallTimes: { _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.reanchorWallTimes") },
        recordAnsweringPings: { _, _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.recordAnsweringPings") },
        savePings: { _ throws(StoreFailure) in throw .unexpected("CheckInStoreClient.savePings") },
        pendingPings: { () throws(StoreFailure) in throw .unexpected("CheckInStoreClient.pendingPings") }
    )
}

/// Settings as stored, with the config values last applied so that an edited config file takes
/// effect on restart while a change made with `lifesignalctl` survives restarts of an unedited one.
public struct StoredSettings: Hashable, Sendable {
    public var settings: CheckInSettings
    /// Bumped on every change; the newer side wins when syncing with the backend.
    public var version: Int64
    public var appliedFromConfig: CheckInSettings?
    /// Away mode as the settings carry it (synced with the backend); nil when not away.
    public var away: AwayPlan?
    /// Read with the settings, never written through them: the latest away period the device
    /// stored (`startAway`, `endAway`), so a restart knows at once whether it is away.
    public var latestAway: AwayPeriod?

    public init(settings: CheckInSettings, version: Int64, appliedFromConfig: CheckInSettings?,
                away: AwayPlan? = nil, latestAway: AwayPeriod? = nil) {
        self.settings = settings
        self.version = version
        self.appliedFromConfig = appliedFromConfig
        self.away = away
        self.latestAway = latestAway
    }
}

/// Why the store could not do what was asked. `Equatable` so reducers can keep it in state.
public struct StoreFailure: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// The disk or filesystem is full.
        case full
        /// The file or its directory cannot be written (read-only filesystem, permissions).
        case readOnly
        /// The file is not a valid database; it was moved aside, never deleted.
        case corrupt
        /// The file was written by a newer version of this software.
        case newerSchema
        /// The store could not be opened or reached at all.
        case unavailable
        /// The database file or its write-ahead log is no longer the file the store has open
        /// (deleted, moved or replaced while in use): writes are refused until the store is
        /// recovered, reopened at its path with the rows the open handle still holds.
        case moved
        /// Anything else SQLite reported.
        case other
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
