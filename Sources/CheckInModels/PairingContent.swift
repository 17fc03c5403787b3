/// What a pairing code may say, both ways: the bytes of a source, and the rules every name,
/// address and heartbeat meets, so that `lifesignalctl pair` refuses what a watcher would.
enum PairingContent {
    enum SourceTag: UInt8 {
        case mqttDefault = 0, mqttTopic, backendText, backendUUID, healthchecksUUID, healthchecksSlug
    }

    /// The source's tag and address bytes: the shortest form that gives back the same text.
    static func sourceBytes(_ source: DependentSource) -> [UInt8] {
        switch source {
        case let .mqtt(topic):
            let defaultPrefix = "lifesignal/"
            if topic.hasPrefix(defaultPrefix), let id = hexBytes(topic.dropFirst(defaultPrefix.count)), id.count == 6 {
                return [SourceTag.mqttDefault.rawValue] + id
            }
            return [SourceTag.mqttTopic.rawValue] + counted(topic)
        case let .backend(id):
            if let uuid = uuidBytes(id) { return [SourceTag.backendUUID.rawValue] + uuid }
            return [SourceTag.backendText.rawValue] + counted(id)
        case let .healthchecks(check):
            if let uuid = uuidBytes(check) { return [SourceTag.healthchecksUUID.rawValue] + uuid }
            return [SourceTag.healthchecksSlug.rawValue] + counted(check)
        }
    }

    /// The source at the start of `bytes`, and how many bytes it took.
    static func source(from bytes: ArraySlice<UInt8>) throws(PairingRefusal) -> (DependentSource, Int) {
        let cutShort = PairingRefusal(.damaged, "damaged: it ends inside the address — check for a missing group")
        guard let tagByte = bytes.first else { throw cutShort }
        guard let tag = SourceTag(rawValue: tagByte) else {
            throw PairingRefusal(.newerRelease, "from a newer release: it names a kind of source (\(tagByte)) this release does not "
                                 + "know; update LifeSignal on this device")
        }
        let rest = bytes.dropFirst()
        switch tag {
        case .mqttDefault:
            guard rest.count >= 6 else { throw cutShort }
            return (.mqtt(baseTopic: "lifesignal/" + hexText(rest.prefix(6))), 7)
        case .backendUUID, .healthchecksUUID:
            guard rest.count >= 16 else { throw cutShort }
            let uuid = uuidText(rest.prefix(16))
            return (tag == .backendUUID ? .backend(id: uuid) : .healthchecks(check: uuid), 17)
        case .mqttTopic, .backendText, .healthchecksSlug:
            guard let length = rest.first.map(Int.init), rest.count > length else { throw cutShort }
            guard let text = String(validating: rest.dropFirst().prefix(length), as: UTF8.self) else {
                throw PairingRefusal(.unusable, "its address is not valid UTF-8: it was not made by lifesignalctl pair")
            }
            let source: DependentSource = switch tag {
            case .mqttTopic: .mqtt(baseTopic: text)
            case .backendText: .backend(id: text)
            default: .healthchecks(check: text)
            }
            return (source, 2 + length)
        }
    }

    // MARK: Rules

    static func problem(source: DependentSource) -> String? {
        let address = source.address
        let bytes = Array(address.utf8)
        switch source {
        case .mqtt:
            if bytes.isEmpty { return "the MQTT base topic is empty" }
            if bytes.count > PairingCode.addressLimit {
                return "the MQTT base topic is longer than \(PairingCode.addressLimit) bytes: set a shorter [mqtt] base_topic"
            }
            if address.unicodeScalars.contains(where: { $0 == "+" || $0 == "#" }) {
                return "the MQTT base topic \(TerminalText.quoted(address)) has a wildcard (+ or #), which no device publishes under"
            }
            if address.hasPrefix("$") { return "the MQTT base topic \(TerminalText.quoted(address)) starts with $, the broker's own topics" }
            if address.unicodeScalars.contains(where: unusable) {
                return "the MQTT base topic \(TerminalText.quoted(address)) has a control character"
            }
        case .backend:
            if bytes.isEmpty || bytes.count > 64 || !bytes.allSatisfy(isIdentifierByte) {
                return "the backend id \(TerminalText.quoted(address)) is not 1 to 64 letters, digits, '.', '_', ':' or '-'"
            }
        case .healthchecks:
            if bytes.isEmpty || bytes.count > PairingCode.addressLimit || !bytes.allSatisfy(isSlugByte) {
                return "the healthchecks check \(TerminalText.quoted(address)) is neither a UUID nor a slug (a-z, 0-9, '-' and '_')"
            }
        }
        return nil
    }

    static func problem(name bytes: [UInt8]) -> String? {
        guard let name = String(validating: bytes, as: UTF8.self) else { return "the name is not valid UTF-8" }
        if name.allSatisfy(\.isWhitespace) { return "the name is empty" }
        if bytes.count > PairingCode.nameLimit {
            return "the name \(TerminalText.quoted(name)) is longer than \(PairingCode.nameLimit) bytes: choose a shorter one"
        }
        if name.unicodeScalars.contains(where: unusable) { return "the name \(TerminalText.quoted(name)) has a control character" }
        return nil
    }

    static func problem(heartbeat: Duration) -> String? {
        let range = PairingCode.heartbeatRange
        guard heartbeat.components.attoseconds == 0 else { return "the heartbeat allowance is not a whole number of seconds" }
        guard range.contains(heartbeat) else {
            return "the heartbeat allowance \(DurationText.humane(heartbeat)) is outside \(DurationText.humane(range.lowerBound)) "
                + "to \(DurationText.humane(range.upperBound))"
        }
        return nil
    }

    // MARK: Helpers

    /// Control characters, bidirectional overrides and the replacement character (invalid UTF-8).
    static func unusable(_ scalar: Unicode.Scalar) -> Bool {
        TerminalText.needsEscape(scalar) || scalar == "\u{FFFD}"
    }

    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        isSlugByte(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || byte == UInt8(ascii: ".")
            || byte == UInt8(ascii: ":")
    }

    static func isSlugByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
    }

    /// A length byte and the text's UTF-8, cut to `PairingCode.addressLimit`.
    static func counted(_ text: String) -> [UInt8] {
        let bytes = clipped(Array(text.utf8), to: PairingCode.addressLimit)
        return [UInt8(bytes.count)] + bytes
    }

    static func clipped(_ bytes: [UInt8], to limit: Int) -> [UInt8] {
        Array(bytes.prefix(limit))
    }

    /// Lower-case hex digits as bytes (upper case would not give the same text back).
    static func hexBytes(_ text: Substring) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    static func hexText(_ bytes: some Collection<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes { text += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: text, as: UTF8.self)
    }

    /// A lower-case UUID (8-4-4-4-12 hex digits) as its 16 bytes.
    static func uuidBytes(_ text: String) -> [UInt8]? {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.utf8.count) == [8, 4, 4, 4, 12] else { return nil }
        return hexBytes(Substring(groups.joined()))
    }

    static func uuidText(_ bytes: some Collection<UInt8>) -> String {
        let hex = Array(hexText(bytes))
        var text = ""
        for (index, digit) in hex.enumerated() {
            if [8, 12, 16, 20].contains(index) { text += "-" }
            text.append(digit)
        }
        return text
    }
}

/// Why a code is refused, before the text it was read from is attached (`PairingCodeError`).
struct PairingRefusal: Error {
    var kind: PairingCodeError.Kind
    var problem: String

    init(_ kind: PairingCodeError.Kind, _ problem: String) {
        self.kind = kind
        self.problem = problem
    }
}
