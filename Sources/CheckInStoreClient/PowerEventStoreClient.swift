public import CheckInModels
import ComposableCore

/// Where the device's own events (power, restarts) are kept until every target has them, and the
/// mark that tells a clean stop from an unexpected one.
public struct PowerEventStoreClient: Sendable {
    /// Durably stores a new event and returns it as stored.
    public var record: @Sendable (PowerEvent) async throws(StoreFailure) -> PowerEvent
    /// The most recent events, newest first.
    public var recent: @Sendable (_ limit: Int) async throws(StoreFailure) -> [PowerEvent]
    /// Marks this run as started (at `now`) and returns how the previous run ended: nil on a
    /// fresh store.
    public var markRunStarted: @Sendable (_ now: DeviceInstant) async throws(StoreFailure) -> PreviousRun?
    /// Marks this run as stopped cleanly.
    public var markRunStopped: @Sendable () async throws(StoreFailure) -> Void

    public init(
        record: @escaping @Sendable (PowerEvent) async throws(StoreFailure) -> PowerEvent,
        recent: @escaping @Sendable (_ limit: Int) async throws(StoreFailure) -> [PowerEvent],
        markRunStarted: @escaping @Sendable (_ now: DeviceInstant) async throws(StoreFailure) -> PreviousRun?,
        markRunStopped: @escaping @Sendable () async throws(StoreFailure) -> Void
    ) {
        self.record = record
        self.recent = recent
        self.markRunStarted = markRunStarted
        self.markRunStopped = markRunStopped
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = PowerEventStoreClient(
        record: { _ throws(StoreFailure) in throw .unexpected("PowerEventStoreClient.record") },
        recent: { _ throws(StoreFailure) in throw .unexpected("PowerEventStoreClient.recent") },
        markRunStarted: { _ throws(StoreFailure) in throw .unexpected("PowerEventStoreClient.markRunStarted") },
        markRunStopped: { () throws(StoreFailure) in throw .unexpected("PowerEventStoreClient.markRunStopped") })
}

/// How the run before this one ended, as its mark says.
public struct PreviousRun: Hashable, Sendable {
    /// When it started.
    public var startedAt: DeviceInstant
    /// It marked itself stopped (SIGTERM, a low battery); false: it died (power cut, crash, SIGKILL).
    public var stoppedCleanly: Bool

    public init(startedAt: DeviceInstant, stoppedCleanly: Bool) {
        self.startedAt = startedAt
        self.stoppedCleanly = stoppedCleanly
    }
}
