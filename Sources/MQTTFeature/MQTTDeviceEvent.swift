public import CheckInModels

/// What happened on the device that the home's automations hear of, as the device feature tells
/// it; `MQTTFeature` turns each into a stored `DeviceEvent` (docs/mqtt.md, "Events").
public enum MQTTDeviceEvent: Equatable, Sendable {
    /// A check-in was stored (a press, `lifesignalctl check-in`, or an MQTT command).
    case checkIn(CheckInRecord)
    /// The deadline passed without a check-in.
    case overdue(deadline: WallTime?, at: WallTime)
    /// A check-in answered these pings.
    case pingsAnswered(count: Int, at: WallTime)
    /// The button was held for the long-press time (a help request when alerts are on).
    case longPress(at: WallTime)
    /// The help alert was stored and is being sent to the responders.
    case alertSent(AlertRecord)
    /// A press (or the CLI) cancelled the alert in its cancel window.
    case alertCancelled(source: String, at: WallTime)
    /// The backend acknowledged the alert: the responders are being told.
    case alertDelivered(id: CheckInID, at: WallTime)
    /// The mains power went or came back, the battery ran low, or the last run did not stop cleanly.
    case power(PowerEvent)

    /// The event entity it belongs to (the last level of its topic).
    var entity: String {
        switch self {
        case .checkIn, .overdue, .pingsAnswered: "check_in"
        case .longPress, .alertSent, .alertCancelled, .alertDelivered: "help_alert"
        case .power: "power"
        }
    }

    /// When it happened.
    var at: WallTime {
        switch self {
        case let .checkIn(record): record.at.wall
        case let .power(event): event.at.wall
        case let .alertSent(record): record.at.wall
        case let .overdue(_, at), let .pingsAnswered(_, at), let .longPress(at), let .alertCancelled(_, at),
             let .alertDelivered(_, at): at
        }
    }

    /// The JSON published: `event_type` (one of the entity's types) first, then the details.
    func payload(id: CheckInID) -> String {
        var members: [(String, JSONValue)]
        switch self {
        case let .checkIn(record):
            members = [("event_type", .string("check_in")), ("check_in_id", .string(record.id.description)),
                       ("source", .string(record.source.rawValue))]
        case let .overdue(deadline, _):
            members = [("event_type", .string("overdue")), ("deadline", .string(orNull: deadline?.iso8601))]
        case let .pingsAnswered(count, _):
            members = [("event_type", .string("ping_answered")), ("pings", .int(count))]
        case .longPress:
            members = [("event_type", .string("long_press"))]
        case let .alertSent(record):
            members = [("event_type", .string("alert_sent")), ("alert_id", .string(record.id.description)),
                       ("source", .string(record.source.rawValue))]
        case let .alertCancelled(source, _):
            members = [("event_type", .string("alert_cancelled")), ("source", .string(source))]
        case let .alertDelivered(alertID, _):
            members = [("event_type", .string("alert_delivered")), ("alert_id", .string(alertID.description))]
        case let .power(event):
            members = [("event_type", .string(event.kind.rawValue)), ("detail", .string(event.summary))]
        }
        members += [("at", .string(at.iso8601)), ("id", .string(id.description))]
        return JSONValue.object(members).text
    }
}
