public import CheckInModels
import ComposableCore

/// Local time in a zone, from the C library over the system's tzdata (`DeviceClockLive`): the
/// device has no zone rules of its own.
public struct TimeZoneClient: Sendable {
    /// The zone's offset from UTC at an instant (seconds east); nil when the zone cannot be read.
    /// `zone` nil is the system's zone (`/etc/localtime`).
    public var utcOffset: @Sendable (_ zone: String?, _ at: WallTime) -> Int?
    /// Reads the zone files again before the next answers: the system's zone may have been
    /// changed (`timedatectl set-timezone`) or tzdata updated since the last time.
    public var reload: @Sendable () -> Void
    /// The IANA name of the system's zone (`Europe/London`), where it can be told.
    public var systemZoneName: @Sendable () -> String?

    public init(utcOffset: @escaping @Sendable (_ zone: String?, _ at: WallTime) -> Int?,
                reload: @escaping @Sendable () -> Void = {},
                systemZoneName: @escaping @Sendable () -> String? = { nil }) {
        self.utcOffset = utcOffset
        self.reload = reload
        self.systemZoneName = systemZoneName
    }

    /// The offsets of one zone, as the schedule's arithmetic takes them.
    public func offsets(_ zone: String?) -> UTCOffsets {
        { time in utcOffset(zone, time) }
    }

    /// Every call is reported as unexpected: tests override what they use.
    public static let failing = TimeZoneClient(
        utcOffset: { _, _ in
            UnexpectedCall.report("TimeZoneClient.utcOffset")
            return nil
        },
        reload: { UnexpectedCall.report("TimeZoneClient.reload") },
        systemZoneName: {
            UnexpectedCall.report("TimeZoneClient.systemZoneName")
            return nil
        })

    /// UTC everywhere (a device without a daily schedule never asks).
    public static let utc = TimeZoneClient(utcOffset: { _, _ in 0 }, systemZoneName: { "UTC" })
}
