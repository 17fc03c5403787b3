/// How `JSONWriter` lays a document out.
public struct JSONFormat: Sendable, Equatable {
    /// Object members in code-point order of their names, so the same value always has the same bytes.
    public var sortedKeys: Bool
    /// Two-space indentation and one member or item per line, for people.
    public var pretty: Bool

    public init(sortedKeys: Bool = true, pretty: Bool = false) {
        self.sortedKeys = sortedKeys
        self.pretty = pretty
    }
}

public enum JSONWriter {
    public static func write(_ value: JSONValue, format: JSONFormat = JSONFormat()) -> [UInt8] {
        var out: [UInt8] = []
        append(value, format: format, indent: 0, to: &out)
        return out
    }

    static func append(_ value: JSONValue, format: JSONFormat, indent: Int, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case let .bool(flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case let .number(text): out.append(contentsOf: text.utf8)
        case let .string(text): JSONText.appendString(text, to: &out)
        case let .array(items):
            guard !items.isEmpty else { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(format, indent + 1, &out)
                append(item, format: format, indent: indent + 1, to: &out)
            }
            newline(format, indent, &out)
            out.append(UInt8(ascii: "]"))
        case let .object(members):
            guard !members.isEmpty else { out.append(contentsOf: "{}".utf8); return }
            let ordered = format.sortedKeys ? members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) } : members
            out.append(UInt8(ascii: "{"))
            for (index, member) in ordered.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                newline(format, indent + 1, &out)
                JSONText.appendString(member.key, to: &out)
                out.append(contentsOf: (format.pretty ? ": " : ":").utf8)
                append(member.value, format: format, indent: indent + 1, to: &out)
            }
            newline(format, indent, &out)
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func newline(_ format: JSONFormat, _ indent: Int, _ out: inout [UInt8]) {
        guard format.pretty else { return }
        out.append(0x0A)
        out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }
}

/// JSON string literals. `/` is escaped, as FoundationEssentials' `JSONEncoder` does by default, so
/// that bodies stay byte for byte what the project's peers (and its earlier releases) wrote.
public enum JSONText {
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "/"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "/")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                out.append(hexDigit(byte >> 4))
                out.append(hexDigit(byte & 0xF))
            default: out.append(byte)  // UTF-8 passes through as it is, multi-byte sequences included
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }
}
