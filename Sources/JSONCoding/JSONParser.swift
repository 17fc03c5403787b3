/// Why a text is not JSON, and where.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    /// The byte offset at which reading stopped (0-based).
    public var offset: Int

    public var description: String { "\(reason) at byte \(offset + 1)" }
}

/// Strict RFC 8259: one value with optional whitespace around it; no comments, trailing commas,
/// leading zeros, single quotes, raw control characters in strings, invalid UTF-8 or lone
/// surrogates. Whatever a peer sends, this returns a value or an error and never traps: nesting is
/// limited (`maximumDepth`) so hostile input cannot exhaust the stack.
public enum JSONParser {
    public static let maximumDepth = 512

    public static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        let array = Array(bytes)
        return try array.withUnsafeBufferPointer { (buffer) throws(JSONSyntaxError) -> JSONValue in
            var reader = Reader(bytes: buffer)
            reader.skipWhitespace()
            let value = try reader.value(depth: 0)
            reader.skipWhitespace()
            guard reader.position == buffer.count else { throw reader.error("unexpected text after the value") }
            return value
        }
    }
}

private struct Reader {
    let bytes: UnsafeBufferPointer<UInt8>
    var position = 0

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    func error(_ reason: String) -> JSONSyntaxError { JSONSyntaxError(reason: reason, offset: position) }

    var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    mutating func value(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character \(describe(byte))")
        }
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let count = word.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw error("unexpected end of text") }
        for offset in 0..<count where bytes[position + offset] != word.utf8Start[offset] {
            throw error("unexpected character \(describe(bytes[position]))")
        }
        position += count
    }

    mutating func object(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else { throw error("nested more than \(JSONParser.maximumDepth) levels deep") }
        position += 1  // {
        var members: [(key: String, value: JSONValue)] = []
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            position += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a member name in double quotes") }
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a member name") }
            position += 1
            skipWhitespace()
            members.append((key, try value(depth: depth)))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"): position += 1; return .object(members)
            case nil: throw error("the text ends inside an object")
            default: throw error("expected ',' or '}' in an object")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard depth <= JSONParser.maximumDepth else { throw error("nested more than \(JSONParser.maximumDepth) levels deep") }
        position += 1  // [
        var items: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            position += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            items.append(try value(depth: depth))
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"): position += 1; return .array(items)
            case nil: throw error("the text ends inside an array")
            default: throw error("expected ',' or ']' in an array")
            }
        }
    }

    mutating func number() throws(JSONSyntaxError) -> String {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        guard let first = current, isDigit(first) else { throw error("a number needs a digit here") }
        position += 1
        if first == UInt8(ascii: "0"), let next = current, isDigit(next) { throw error("a number may not start with 0") }
        skipDigits()
        if current == UInt8(ascii: ".") {
            position += 1
            guard let digit = current, isDigit(digit) else { throw error("a number needs a digit after '.'") }
            skipDigits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard let digit = current, isDigit(digit) else { throw error("a number needs a digit in its exponent") }
            skipDigits()
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
    }

    mutating func skipDigits() {
        while let byte = current, isDigit(byte) { position += 1 }
    }

    mutating func string() throws(JSONSyntaxError) -> String {
        position += 1  // opening quote
        let start = position
        // The common case, no escapes: the bytes are the string (validated as UTF-8 below).
        while let byte = current, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\"), byte >= 0x20 { position += 1 }
        var utf8 = Array(UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let byte = current else { throw error("the text ends inside a string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw JSONSyntaxError(reason: "a string is not valid UTF-8", offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                position += 1
                try escape(into: &utf8)
            case 0x00..<0x20:
                throw error("control character \(describe(byte)) in a string (it must be escaped)")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw error("the text ends inside an escape") }
        position += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = UInt32(try hex4())
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard current == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape names half of a surrogate pair")
                }
                position += 2
                let low = UInt32(try hex4())
                guard (0xDC00..<0xE000).contains(low) else { throw error("a \\u escape names half of a surrogate pair") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00..<0xE000).contains(scalar) {
                throw error("a \\u escape names half of a surrogate pair")
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("a \\u escape names no character") }
            utf8.append(contentsOf: UTF8.encode(unicode)!)
        default:
            position -= 1
            throw error("unknown escape \\\(describe(byte))")
        }
    }

    mutating func hex4() throws(JSONSyntaxError) -> UInt16 {
        guard bytes.count - position >= 4 else { throw error("a \\u escape needs four hex digits") }
        var value: UInt16 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape needs four hex digits")
            }
            value = value << 4 | UInt16(digit)
            position += 1
        }
        return value
    }
}

private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

/// A byte for an error message: printable ASCII as itself, anything else by its code.
private func describe(_ byte: UInt8) -> String {
    (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16, uppercase: true)
}
