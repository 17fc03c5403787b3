public import CheckInModels

/// How long check-ins have waited for the backend, and whether that is too long (the device is cut
/// off). The uploader reports the oldest unacknowledged check-in; the feature decides on monotonic
/// time, with one wake-up at the moment it becomes too long.
public struct UploadBacklog: Equatable, Sendable {
    /// `[uplink] stale_after`; nil without an uplink (nothing is ever uploaded, so nothing is late).
    public var staleAfter: Duration?
    /// When the oldest check-in the backend has not acknowledged was made; nil when none waits.
    public var oldestPendingSince: DeviceInstant?
    /// It has waited `staleAfter` or longer: the LEDs show the "not uploaded" variant.
    public var isStale = false

    public init(staleAfter: Duration? = nil) {
        self.staleAfter = staleAfter
    }
}
