/// `GET /v1/device`: who the calling device is to the backend. A person's `lifesignalctl pair`
/// reads its own id here, to print it in the code a watcher scans.
public struct DeviceIdentity: Codable, Hashable, Sendable {
    public var id: String
    /// The name the family gave the device in the backend; null when it has none.
    public var name: String?

    public init(id: String, name: String?) {
        self.id = id
        self.name = name
    }

    // Encoded with an explicit null: the API says the field is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
    }

    enum CodingKeys: String, CodingKey {
        case id, name
    }
}

/// `GET /v1/dependents`: the devices the calling device watches (its dependents).
public struct DependentList: Codable, Hashable, Sendable {
    public var dependents: [WireDependent]

    public init(dependents: [WireDependent]) {
        self.dependents = dependents
    }
}

/// One dependent on the wire, as the backend derives it from what their device sent.
public struct WireDependent: Codable, Hashable, Sendable {
    /// Their device's id on the backend (the `{id}` of `/v1/dependents/{id}`).
    public var id: String
    public var name: String?
    /// help_alert, overdue, silent, reminder, unknown, away, checked_in (`DependentStatus`).
    public var status: String
    /// RFC 3339 UTC; null before their first check-in.
    public var lastCheckIn: String?
    /// When they are next due, RFC 3339 UTC; null when nothing is asked of them (no check-in yet, away).
    public var deadline: String?
    /// This watcher's ping waits for their press.
    public var pingPending: Bool
    /// Who said "I'm on it" since their last check-in; null when nobody did.
    public var onIt: String?

    public init(id: String, name: String?, status: String, lastCheckIn: String?, deadline: String?, pingPending: Bool,
                onIt: String?) {
        self.id = id
        self.name = name
        self.status = status
        self.lastCheckIn = lastCheckIn
        self.deadline = deadline
        self.pingPending = pingPending
        self.onIt = onIt
    }

    // Encoded with explicit nulls: every field is always there.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(name, forKey: .name)
        try container.encode(status, forKey: .status)
        try container.encode(lastCheckIn, forKey: .lastCheckIn)
        try container.encode(deadline, forKey: .deadline)
        try container.encode(pingPending, forKey: .pingPending)
        try container.encode(onIt, forKey: .onIt)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, status, lastCheckIn, deadline, pingPending, onIt
    }
}

/// `POST /v1/dependents/{id}/on-it`: the watcher is on the way.
public struct OnItRequest: Codable, Hashable, Sendable {
    /// How the dependent's device shows who is coming ("Anna").
    public var watcher: String

    public init(watcher: String) {
        self.watcher = watcher
    }
}

extension DeviceAPIPath {
    public static let device = "/v1/device"
    public static let dependents = "/v1/dependents"

    /// `/v1/dependents/{id}`, the id percent-encoded.
    public static func dependent(_ id: String) -> String {
        dependents + "/" + pathSegment(id)
    }

    /// `/v1/dependents/{id}/ping`.
    public static func dependentPing(_ id: String) -> String {
        dependent(id) + "/ping"
    }

    /// `/v1/dependents/{id}/on-it`.
    public static func dependentOnIt(_ id: String) -> String {
        dependent(id) + "/on-it"
    }

    /// RFC 3986 path segment: every byte but the unreserved characters as %XX, so an id can never
    /// reach another path (`../`, `/`).
    public static func pathSegment(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                encoded += "%" + (hex.count == 1 ? "0" : "") + hex
            }
        }
        return encoded
    }

    /// The text of a percent-encoded path segment; nil when an escape is malformed or the bytes
    /// are not UTF-8.
    public static func decodedPathSegment(_ segment: String) -> String? {
        var bytes: [UInt8] = []
        var iterator = segment.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next(), let low = iterator.next(),
                  let value = UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
