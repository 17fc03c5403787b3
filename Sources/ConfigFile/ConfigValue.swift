/// One value from a config file, with the place it was written so every later complaint about it
/// (wrong type, impossible value) can point at `path:line:column`.
public struct ConfigValue: Hashable, Sendable {
    /// The value kinds of the supported TOML subset. Arrays hold values of these kinds except
    /// arrays (nested arrays are not supported).
    public enum Kind: Hashable, Sendable {
        case string(String)
        case integer(Int64)
        case bool(Bool)
        case array([ConfigValue])
    }

    public var kind: Kind
    /// 1-based line of the value's first character.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int

    public init(_ kind: Kind, line: Int, column: Int) {
        self.kind = kind
        self.line = line
        self.column = column
    }

    /// The TOML name of the value's type, for messages such as "expected a string, found an integer".
    public var typeName: String {
        switch kind {
        case .string: "string"
        case .integer: "integer"
        case .bool: "boolean"
        case .array: "array"
        }
    }

    public var stringValue: String? {
        if case .string(let value) = kind { value } else { nil }
    }

    public var integerValue: Int64? {
        if case .integer(let value) = kind { value } else { nil }
    }

    public var boolValue: Bool? {
        if case .bool(let value) = kind { value } else { nil }
    }

    public var arrayValue: [ConfigValue]? {
        if case .array(let values) = kind { values } else { nil }
    }
}

/// A `key = value` line: the key's own position is kept apart from the value's, so "unknown key"
/// points at the key and "wrong type" at the value.
public struct ConfigEntry: Hashable, Sendable {
    public var key: String
    public var line: Int
    public var column: Int
    public var value: ConfigValue

    public init(key: String, line: Int, column: Int, value: ConfigValue) {
        self.key = key
        self.line = line
        self.column = column
        self.value = value
    }
}

/// The keys under one `[table]` header (or before the first header: the root table, path `[]`).
public struct ConfigTable: Hashable, Sendable {
    /// Header components: `[leds.green]` is `["leds", "green"]`; the root table is `[]`.
    public var path: [String]
    /// Position of the header's `[` (1, 1 for the root table).
    public var line: Int
    public var column: Int
    /// Entries in file order; keys are unique within a table.
    public var entries: [ConfigEntry]

    public init(path: [String], line: Int, column: Int, entries: [ConfigEntry] = []) {
        self.path = path
        self.line = line
        self.column = column
        self.entries = entries
    }

    /// The header as written in messages, e.g. `leds.green` (components that are not bare keys are quoted).
    public var name: String {
        path.map(ConfigTable.displayKey).joined(separator: ".")
    }

    public subscript(key: String) -> ConfigEntry? {
        entries.first { $0.key == key }
    }

    /// A key as it would have to be written in the file: bare if possible, else as a basic string.
    public static func displayKey(_ key: String) -> String {
        if !key.isEmpty, key.unicodeScalars.allSatisfy(isBareKeyScalar) { return key }
        var quoted = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            default:
                if isControl(scalar) {
                    quoted += "\\u" + hex4(scalar.value)
                } else {
                    quoted.unicodeScalars.append(scalar)
                }
            }
        }
        return quoted + "\""
    }
}

func isBareKeyScalar(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar {
    case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
    default: false
    }
}

/// TOML forbids raw control characters (except tab) in comments and strings.
func isControl(_ scalar: Unicode.Scalar) -> Bool {
    (scalar.value < 0x20 && scalar != "\t") || scalar.value == 0x7F
}

func hex4(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}
