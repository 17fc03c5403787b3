/// A parsed config file: a strict, documented subset of TOML 1.0 (https://toml.io/en/v1.0.0).
///
/// Supported:
/// - comments (`# ...`), blank lines, LF or CRLF line ends, an optional leading byte-order mark;
/// - table headers `[table]` and `[dotted.table]` (components bare or quoted);
/// - `key = value` with bare keys (`A-Z a-z 0-9 _ -`) or quoted keys (`"..."`, `'...'`);
/// - basic strings `"..."` with the escapes `\" \\ \b \f \n \r \t \uXXXX \UXXXXXXXX`;
/// - literal strings `'...'` (no escapes);
/// - decimal integers with an optional sign and `_` between digits (`1_000`, `-5`);
/// - booleans `true` / `false`;
/// - arrays of the above (not of arrays) that may span lines, hold comments and end with a comma.
///
/// Refused with a message saying they are not supported: floats, dates and times, inline tables,
/// arrays of tables (`[[...]]`), multi-line strings, dotted keys on the left of `=`, nested arrays,
/// hexadecimal/octal/binary integers, headers of more than `maxHeaderDepth` names.
///
/// Refused as in TOML: duplicate keys, a table defined twice, a key and a table with the same name.
/// Parsing never traps and never recurses, whatever the input.
public struct ConfigDocument: Hashable, Sendable {
    /// The root table (path `[]`) first, then each `[header]` in file order.
    public var tables: [ConfigTable]

    public init(tables: [ConfigTable]) {
        self.tables = tables
    }

    /// Most names a `[a.b.c]` header may have: keeps table bookkeeping linear on hostile input.
    public static let maxHeaderDepth = 16

    /// The table defined by exactly this header (the root table for `[]`).
    public func table(_ path: [String]) -> ConfigTable? {
        tables.first { $0.path == path }
    }

    /// Parses the whole text, stopping at the first error.
    public static func parse(_ text: String) throws(ConfigSyntaxError) -> ConfigDocument {
        var parser = ConfigParser(text)
        return try parser.parseDocument()
    }
}

/// Collects tables and entries while enforcing TOML's uniqueness rules.
struct DocumentBuilder {
    private(set) var tables: [ConfigTable] = [ConfigTable(path: [], line: 1, column: 1)]
    /// Explicitly defined tables → index in `tables`.
    private var tableIndex: [[String]: Int] = [[]: 0]
    /// Every prefix of every header (implicitly defined tables included) → line of the first header
    /// that created it, so a later key of the same name can be refused.
    private var tablePrefixes: [[String]: Int] = [:]
    /// Keys per table → line where each was defined.
    private var keyLines: [[String]: [String: Int]] = [:]
    private var current = 0

    mutating func defineTable(_ path: [String], line: Int, column: Int) throws(ConfigSyntaxError) {
        let display = "[" + path.map(ConfigTable.displayKey).joined(separator: ".") + "]"
        if let existing = tableIndex[path] {
            throw ConfigSyntaxError(line: line, column: column,
                                    message: "table \(display) is already defined at line \(tables[existing].line); "
                                        + "put all of its keys under one header")
        }
        for length in 1...path.count {
            let parent = Array(path[0..<(length - 1)])
            let name = path[length - 1]
            if let keyLine = keyLines[parent]?[name] {
                let full = path[0..<length].map(ConfigTable.displayKey).joined(separator: ".")
                throw ConfigSyntaxError(line: line, column: column,
                                        message: "cannot define table \(display): '\(full)' is already a value (line \(keyLine))")
            }
            let prefix = Array(path[0..<length])
            if tablePrefixes[prefix] == nil { tablePrefixes[prefix] = line }
        }
        tableIndex[path] = tables.count
        tables.append(ConfigTable(path: path, line: line, column: column))
        current = tables.count - 1
    }

    mutating func add(_ entry: ConfigEntry) throws(ConfigSyntaxError) {
        let path = tables[current].path
        let where_ = path.isEmpty ? "before the first [table] header"
            : "in [" + path.map(ConfigTable.displayKey).joined(separator: ".") + "]"
        let display = ConfigTable.displayKey(entry.key)
        if let firstLine = keyLines[path]?[entry.key] {
            throw ConfigSyntaxError(line: entry.line, column: entry.column,
                                    message: "duplicate key '\(display)' \(where_): it is already set at line \(firstLine)")
        }
        if let tableLine = tablePrefixes[path + [entry.key]] {
            throw ConfigSyntaxError(line: entry.line, column: entry.column,
                                    message: "key '\(display)' \(where_) clashes with the table of the same name at line \(tableLine)")
        }
        keyLines[path, default: [:]][entry.key] = entry.line
        tables[current].entries.append(entry)
    }
}
