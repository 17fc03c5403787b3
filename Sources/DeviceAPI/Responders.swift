/// `GET /v1/responders`: everyone the backend tells about the calling device when its person
/// misses a check-in or asks for help. Names and kinds of channel only: never an address, a
/// phone number or a secret.
public struct ResponderList: Codable, Hashable, Sendable {
    public var responders: [WireResponder]

    public init(responders: [WireResponder]) {
        self.responders = responders
    }
}

/// One responder on the wire.
public struct WireResponder: Codable, Hashable, Sendable {
    /// The backend's id for them: a watcher's device id, or a contact's id.
    public var id: String
    public var name: String
    /// `watcher` (a LifeSignal device that follows this one) or `contact` (a person the family
    /// added); a later backend may add kinds, which the device shows as they are.
    public var kind: String
    /// How they are reached: `device`, `app`, `sms`, `email`, `call`, ...
    public var channels: [String]
    /// `missed_check_in`, `help_alert` (`ResponderTopic`).
    public var notifiedOf: [String]

    public init(id: String, name: String, kind: String, channels: [String], notifiedOf: [String]) {
        self.id = id
        self.name = name
        self.kind = kind
        self.channels = channels
        self.notifiedOf = notifiedOf
    }
}

/// Reference server only (`PUT /admin/contacts?device=ID&id=CONTACT`): a person the family adds
/// as a responder of a device, as the app would.
public struct ResponderContact: Codable, Hashable, Sendable {
    public var name: String
    public var channels: [String]
    /// Absent: both topics.
    public var notifiedOf: [String]?

    public init(name: String, channels: [String], notifiedOf: [String]? = nil) {
        self.name = name
        self.channels = channels
        self.notifiedOf = notifiedOf
    }
}

extension WireResponder {
    /// `sms`, `email`, `msteams`: a kind of channel, lower-cased (a letter, then letters, digits,
    /// `-` and `_`, 32 at most); nil for anything else, such as an address, a phone number or a
    /// URL, which the API never carries and the device never shows.
    public static func channelKind(_ text: String) -> String? {
        let word = text.lowercased()
        guard (1...32).contains(word.count), word.first.map({ $0.isASCII && $0.isLetter }) == true,
              word.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else { return nil }
        return word
    }
}

extension DeviceAPIPath {
    public static let responders = "/v1/responders"
}
