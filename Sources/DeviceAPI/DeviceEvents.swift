public import CheckInModels

/// `POST /v1/events`: one of the device's own events (docs/device-api.yaml, `DeviceEvent`): the
/// mains power going or coming back, a low battery, an unexpected restart. Idempotent by `id`;
/// the reply is a `CheckInAcknowledgement` naming the id once the server has stored it.
public struct UploadedEvent: Codable, Hashable, Sendable {
    public var id: String
    /// on_battery, power_restored, low_battery, unexpected_restart.
    public var kind: String
    /// Words for people; may be empty.
    public var detail: String
    public var wallTime: String
    public var wallClockSynchronized: Bool
    public var uptimeMicroseconds: Int64
    public var bootId: String

    public init(id: String, kind: String, detail: String, wallTime: String, wallClockSynchronized: Bool,
                uptimeMicroseconds: Int64, bootId: String) {
        self.id = id
        self.kind = kind
        self.detail = detail
        self.wallTime = wallTime
        self.wallClockSynchronized = wallClockSynchronized
        self.uptimeMicroseconds = uptimeMicroseconds
        self.bootId = bootId
    }

    public init(_ event: PowerEvent) {
        self.init(id: event.id.description, kind: event.kind.rawValue, detail: event.detail,
                  wallTime: event.at.wall.rfc3339Microseconds, wallClockSynchronized: event.at.wallClockSynchronized,
                  uptimeMicroseconds: event.at.uptime.wholeMicroseconds, bootId: event.at.bootID)
    }
}

extension DeviceAPIPath {
    public static let events = "/v1/events"
}
