import JSONCoding

/// What a watcher device and the person's device say to each other on the person's topics
/// (docs/mqtt.md, "Watchers"), written and read in one place so both sides agree.
///
/// `<base>/watchers/<watcher id>`, retained: `{"name":"Anna"}` is the watcher's registration
/// (published when it adds the person, and again at each connection); `{"name":"Anna","removed":true}`
/// is the person's device saying it removed that watcher, `{"name":"Anna","allowed":true}` that it
/// let it back (retained, so a watcher away at the time reads it when it connects); an empty
/// payload clears it (the watcher stopped following). Commands a watcher sends carry
/// `{"watcher":"<id>","name":"Anna"}`, so a removed watcher's are refused.
public enum WatcherWire {
    public static func registrationTopic(base: String, watcher id: String) -> String { base + "/watchers/" + id }
    /// Every watcher's registration: the filter the person's device subscribes to.
    public static func registrationFilter(base: String) -> String { base + "/watchers/+" }

    /// The watcher id of a registration topic under `base`; nil for any other topic.
    public static func watcherID(inTopic topic: String, base: String) -> String? {
        let prefix = base + "/watchers/"
        guard topic.hasPrefix(prefix) else { return nil }
        let id = String(topic.dropFirst(prefix.count))
        return isValidID(id) ? id : nil
    }

    /// An MQTT device id: 1 to 64 letters, digits, '-', '_', '.'.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = Array(id.utf8)
        return (1...64).contains(bytes.count) && bytes.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x2D || byte == 0x5F || byte == 0x2E
        }
    }

    /// A name as pings and "I'm on it" carry it: 1 to 64 bytes of text without control characters.
    public static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && !name.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    public struct Registration: Codable, Hashable, Sendable {
        public var name: String
        /// Set by the person's device: it removed this watcher.
        public var removed: Bool?
        /// Set by the person's device: it let this watcher back after removing it.
        public var allowed: Bool?

        public init(name: String, removed: Bool? = nil, allowed: Bool? = nil) {
            self.name = name
            self.removed = removed
            self.allowed = allowed
        }

        /// The person's device's word (a removal or an allowance), not a watcher's registration.
        public var isPersonsWord: Bool { removed == true || allowed == true }
    }

    public static func payload(_ registration: Registration) -> String {
        (try? JSON.encode(registration)).flatMap { String(validating: $0, as: UTF8.self) } ?? ""
    }

    /// A registration message: nil when it was cleared (empty), or why it cannot be read.
    public static func registration(_ payload: [UInt8]) -> Result<Registration?, WatcherWireProblem> {
        guard !payload.isEmpty else { return .success(nil) }
        do {
            let registration = try JSON.decode(Registration.self, from: payload)
            guard isValidName(registration.name) else {
                return .failure(WatcherWireProblem("its name is not 1 to 64 bytes of text"))
            }
            return .success(registration)
        } catch {
            return .failure(WatcherWireProblem("it is not a watcher's registration: \(JSON.readableReason(error))"))
        }
    }

    /// Who sent a command: a watcher's id and name.
    public struct Sender: Codable, Hashable, Sendable {
        public var watcher: String
        public var name: String?

        public init(watcher: String, name: String? = nil) {
            self.watcher = watcher
            self.name = name
        }
    }

    public static func payload(_ sender: Sender) -> String {
        (try? JSON.encode(sender)).flatMap { String(validating: $0, as: UTF8.self) } ?? ""
    }

    /// The sender of a command whose payload is a JSON object; nil for any other payload
    /// ("PRESS", empty, a plain name), or why a JSON one cannot be read.
    public static func sender(_ payload: [UInt8]) -> Result<Sender?, WatcherWireProblem> {
        guard payload.first == UInt8(ascii: "{") else { return .success(nil) }
        do {
            let sender = try JSON.decode(Sender.self, from: payload)
            guard isValidID(sender.watcher) else {
                return .failure(WatcherWireProblem("its watcher id is not 1 to 64 letters, digits, '-', '_' or '.'"))
            }
            if let name = sender.name, !isValidName(name) {
                return .failure(WatcherWireProblem("its name is not 1 to 64 bytes of text"))
            }
            return .success(sender)
        } catch {
            return .failure(WatcherWireProblem("it is not a watcher's command: \(JSON.readableReason(error))"))
        }
    }
}

public struct WatcherWireProblem: Error, Hashable, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
}
