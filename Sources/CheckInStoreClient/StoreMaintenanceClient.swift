import ComposableCore

/// What the device does to the store as a whole, as opposed to its rows: prove it works, and get
/// back to the file at the configured path after it was deleted or replaced while running.
///
/// The decisions (when to probe, when to retry, what the LEDs say meanwhile) are the store health
/// feature's; these calls only do the work and say precisely how it went.
public struct StoreMaintenanceClient: Sendable {
    /// Opens the store if it is not open and proves it can write durably right now (a small write
    /// in its own transaction, and the open file is still the one at the path).
    public var probe: @Sendable () async throws(StoreFailure) -> StoreProbeReport
    /// After `.moved`: opens the file at the path (creating it if it is missing) and copies into it
    /// every row the old handle still holds that it lacks, then closes the old handle.
    public var recover: @Sendable () async throws(StoreFailure) -> StoreRecoveryReport

    public init(
        probe: @escaping @Sendable () async throws(StoreFailure) -> StoreProbeReport,
        recover: @escaping @Sendable () async throws(StoreFailure) -> StoreRecoveryReport
    ) {
        self.probe = probe
        self.recover = recover
    }

    /// Every call is reported as unexpected (and fails): tests override what they use.
    public static let failing = StoreMaintenanceClient(
        probe: { () throws(StoreFailure) in throw .unexpected("StoreMaintenanceClient.probe") },
        recover: { () throws(StoreFailure) in throw .unexpected("StoreMaintenanceClient.recover") }
    )
}

/// How a probe went, beyond "it can write".
public struct StoreProbeReport: Hashable, Sendable {
    /// Set when opening found a damaged file, moved it aside (never deleted) and started a fresh
    /// store: where the old one went, for the operator.
    public var replacedDamagedFile: String?

    public init(replacedDamagedFile: String? = nil) {
        self.replacedDamagedFile = replacedDamagedFile
    }
}

/// What recovering the store found and kept.
public struct StoreRecoveryReport: Hashable, Sendable {
    /// What was at the path and what was done, for the operator: "… was missing; created it
    /// afresh; rows copied from the open handle: check_ins 7".
    public var summary: String
    /// Rows copied from the old handle into the file at the path, all tables together.
    public var rowsRecovered: Int

    public init(summary: String, rowsRecovered: Int) {
        self.summary = summary
        self.rowsRecovered = rowsRecovered
    }
}
