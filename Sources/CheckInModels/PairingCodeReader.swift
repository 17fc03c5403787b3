/// Reads a pairing code as typed or pasted, step by step, so the refusal names the first thing
/// wrong: the prefix, the version, a character, the length, the check symbols, then the content.
struct PairingCodeReader {
    let text: String

    init(_ text: String) {
        self.text = text
    }

    /// The most symbols a code of this format has (the longest address and name), and the fewest
    /// (a one-byte address and name, a heartbeat below 128 s).
    static let longest = (PairingCode.addressLimit + PairingCode.nameLimit + 5) * 8 / 5 + 1 + PairingSymbols.checkSymbols
    static let shortest = 5 * 8 / 5 + PairingSymbols.checkSymbols
    /// More than this much input is not a code, however it is spaced: refused before it is read.
    static let inputLimit = 2 * longest + 8

    func read() throws(PairingCodeError) -> PairingCode {
        do {
            return try decode(symbols())
        } catch {
            throw PairingCodeError(text: text, problem: error.problem, kind: error.kind)
        }
    }

    /// The symbols after `LS1`, without spaces and dashes.
    private func symbols() throws(PairingRefusal) -> [UInt8] {
        let expected = "(it should start with \(PairingCode.prefix))"
        guard text.utf8.count <= Self.inputLimit else {
            throw PairingRefusal(.tooLong, "too long (\(text.utf8.count) bytes): a pairing code has at most \(Self.longest) "
                                 + "characters after \(PairingCode.prefix); copy only the code")
        }
        var significant: [(position: Int, character: Character)] = []
        for (index, character) in text.enumerated() where character != " " && character != "-" {
            significant.append((index + 1, character))
        }
        if significant.isEmpty { throw PairingRefusal(.tooShort, "empty: type the code `lifesignalctl pair` shows on the person's device") }
        let head = String(significant.prefix(2).map(\.character)).uppercased()
        guard head == "LS" else {
            if head == "L", significant.count == 1 { throw PairingRefusal(.tooShort, "too short \(expected)") }
            throw PairingRefusal(.notAPairingCode, "not a LifeSignal pairing code \(expected)")
        }
        guard significant.count > 2 else { throw PairingRefusal(.tooShort, "too short \(expected)") }
        let version = significant[2].character
        if let digit = version.wholeNumberValue, version.isASCII, digit > 1 {
            throw PairingRefusal(.newerRelease, "from a newer release (LS\(digit)): update LifeSignal on this device to add it")
        }
        guard PairingSymbols.value(of: version) == 1 else { throw PairingRefusal(.notAPairingCode, "not a LifeSignal pairing code \(expected)") }
        var symbols: [UInt8] = []
        for (position, character) in significant.dropFirst(3) {
            guard let symbol = PairingSymbols.value(of: character) else {
                throw PairingRefusal(.invalidCharacter, "character \(position), \(TerminalText.quoted(String(character))), is not in any "
                                     + "pairing code: they have only letters (no U), digits and dashes")
            }
            symbols.append(symbol)
        }
        guard symbols.count >= Self.shortest else {
            throw PairingRefusal(.tooShort, "too short: \(symbols.count) characters after \(PairingCode.prefix), where a code has at "
                                 + "least \(Self.shortest) — check for a missing group")
        }
        guard symbols.count <= Self.longest else {
            throw PairingRefusal(.tooLong, "too long: \(symbols.count) characters after \(PairingCode.prefix), where a code has at "
                                 + "most \(Self.longest); copy only the code")
        }
        return symbols
    }

    private func decode(_ symbols: [UInt8]) throws(PairingRefusal) -> PairingCode {
        let data = symbols.dropLast(PairingSymbols.checkSymbols)
        let damaged = PairingRefusal(.damaged, "damaged: the check digits do not match — check for a mistyped, missing or extra character")
        guard PairingSymbols.check(data) == Array(symbols.suffix(PairingSymbols.checkSymbols)),
              let bytes = PairingSymbols.bytes(of: data) else { throw damaged }
        let (source, used) = try PairingContent.source(from: bytes[...])
        var rest = bytes.dropFirst(used)
        let heartbeat = try Self.heartbeat(&rest)
        let name = Array(rest)
        let notMadeByPair = ": it was not made by lifesignalctl pair"
        if let problem = PairingContent.problem(source: source) ?? PairingContent.problem(name: name)
            ?? PairingContent.problem(heartbeat: heartbeat) {
            throw PairingRefusal(.unusable, problem + notMadeByPair)
        }
        return PairingCode(source: source, name: String(decoding: name, as: UTF8.self), heartbeat: heartbeat)
    }

    /// LEB128 in its shortest form, at most 3 bytes (7 days is under 2²¹ seconds).
    private static func heartbeat(_ bytes: inout ArraySlice<UInt8>) throws(PairingRefusal) -> Duration {
        var seconds: Int64 = 0
        for index in 0..<3 {
            guard let byte = bytes.popFirst() else {
                throw PairingRefusal(.damaged, "damaged: it ends before the name — check for a missing group")
            }
            seconds |= Int64(byte & 0x7F) << (7 * index)
            if byte & 0x80 == 0 {
                guard byte != 0 || index == 0 else { break }
                return .seconds(seconds)
            }
        }
        throw PairingRefusal(.unusable, "its heartbeat allowance is not written as lifesignalctl pair writes it")
    }
}
