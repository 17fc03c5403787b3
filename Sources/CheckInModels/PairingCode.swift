/// What `lifesignalctl pair` prints on a person's device and `lifesignalctl dependents add CODE`
/// takes on a watcher: enough for the watcher to find the person and to name them.
///
/// The code is `LS1-` and then symbols of Crockford's base32 in groups of four, e.g.
/// `LS1-000J-6HB7-H6NN-MKBN-DMF9-3` (`lifesignal/0123456789ab`, "Mum", 90 s). The symbols
/// hold these bytes, most significant bit first, then three check symbols (`PairingSymbols`):
///
/// | bytes | what |
/// |---|---|
/// | 1 | the source: 0 MQTT `lifesignal/<12 hex digits>`, 1 any other MQTT base topic, 2 a backend id, 3 a backend id that is a UUID, 4 a healthchecks check's UUID, 5 a healthchecks slug |
/// | 6, 16, or 1 + n | the address: the 12 hex digits, a UUID's 16 bytes, or a length and that many bytes of UTF-8 |
/// | 1–3 | the heartbeat allowance in seconds (LEB128, shortest form) |
/// | the rest | the person's name, UTF-8 |
///
/// `LS1` is the version: a later format starts `LS2`, which this release refuses as newer rather
/// than as damaged. Parsing ignores case, spaces and dashes, and reads I and L as 1 and O as 0.
public struct PairingCode: Hashable, Sendable {
    public var source: DependentSource
    /// The person's name as their device gives it; the watcher may choose another (`--name`).
    public var name: String
    /// How long the watcher waits for word from their device before showing them `silent`.
    public var heartbeat: Duration

    public init(source: DependentSource, name: String, heartbeat: Duration) {
        self.source = source
        self.name = name
        self.heartbeat = heartbeat
    }

    /// What starts every code of this format.
    public static let prefix = "LS1"
    /// The longest name a code carries, in bytes of UTF-8 (about 30 letters with accents).
    public static let nameLimit = 48
    /// The longest address (MQTT base topic, backend id, healthchecks slug), in bytes of UTF-8.
    public static let addressLimit = 100
    /// The heartbeat allowances a code carries: shorter would make a person `silent` at every
    /// hiccup of the network, longer would hide a device that is off for a week.
    public static let heartbeatRange: ClosedRange<Duration> = .seconds(10) ... .seconds(7 * 24 * 3600)

    /// The code as text, `LS1-` and groups of four. Only a code without a `problem` parses back.
    public var text: String {
        var symbols = PairingSymbols.symbols(of: payload)
        symbols += PairingSymbols.check(symbols)
        var text = Self.prefix
        for (index, symbol) in symbols.enumerated() {
            if index % 4 == 0 { text += "-" }
            text.append(PairingSymbols.alphabet[Int(symbol)])
        }
        return text
    }

    /// Why this code cannot be given to a watcher (the parser would refuse it), or nil.
    public var problem: String? {
        if let problem = PairingContent.problem(source: source) { return problem }
        if let problem = PairingContent.problem(name: Array(name.utf8)) { return problem }
        return PairingContent.problem(heartbeat: heartbeat)
    }

    /// Reads a code as a person may have typed it: lower case, spaces, dashes anywhere or none.
    /// Refuses, naming what is wrong, anything that is not exactly a code this release writes.
    public init(parsing text: String) throws(PairingCodeError) {
        self = try PairingCodeReader(text).read()
    }

    /// The bytes the symbols hold (see the type's table). Values over the limits are cut to them,
    /// so a code with a `problem` still has a text, which the parser refuses.
    var payload: [UInt8] {
        var bytes = PairingContent.sourceBytes(source)
        var seconds = UInt64(max(0, min(heartbeat.components.seconds, Self.heartbeatRange.upperBound.components.seconds)))
        repeat {
            let low = UInt8(seconds & 0x7F)
            seconds >>= 7
            bytes.append(seconds == 0 ? low : low | 0x80)
        } while seconds != 0
        bytes += PairingContent.clipped(Array(name.utf8), to: Self.nameLimit)
        return bytes
    }
}

/// A code that is not a LifeSignal pairing code, is damaged, or is from a newer release.
public struct PairingCodeError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// Does not start with `LS` and a version: something else was pasted.
        case notAPairingCode
        /// `LS2` or later, or a source this release does not know: update this device.
        case newerRelease
        /// A character no code has.
        case invalidCharacter
        case tooShort
        case tooLong
        /// The check symbols do not match: a mistyped, missing or extra character.
        case damaged
        /// The check symbols match but what the code says cannot be used (an empty name, a topic
        /// with a wildcard): it was not written by `lifesignalctl pair`.
        case unusable
    }

    /// The text as given (the description shows it shortened and escaped).
    public var text: String
    public var problem: String
    public var kind: Kind

    public init(text: String, problem: String, kind: Kind = .unusable) {
        self.text = text
        self.problem = problem
        self.kind = kind
    }

    /// `pairing code "LS1-000J-6HB": too short: …`, with the code cut to 40 characters and its
    /// control characters escaped (it is whatever was typed or pasted).
    public var description: String {
        let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return "pairing code \(TerminalText.quoted(shown)): \(problem)"
    }
}
