public import CheckInModels

/// `POST /v1/alerts`: one help alert (docs/device-api.yaml, `Alert`). It carries exactly a
/// check-in's fields: `id` (the idempotency key), the time help was asked for (the long press, not
/// the end of the cancel window) on both clocks with the boot id, and the source (`button`, `cli`).
/// The reply is a `CheckInAcknowledgement` naming the id once the server has stored it.
public typealias UploadedAlert = UploadedCheckIn

extension UploadedCheckIn {
    public init(_ alert: AlertRecord) {
        self.init(id: alert.id.description, wallTime: alert.at.wall.rfc3339Microseconds,
                  wallClockSynchronized: alert.at.wallClockSynchronized,
                  uptimeMicroseconds: alert.at.uptime.wholeMicroseconds, bootId: alert.at.bootID,
                  source: alert.source.rawValue)
    }
}

extension DeviceAPIPath {
    public static let alerts = "/v1/alerts"
}
