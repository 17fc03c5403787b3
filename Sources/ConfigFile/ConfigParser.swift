/// A single-pass, non-recursive scanner for the TOML subset described on `ConfigDocument`.
///
/// It walks an array of Unicode scalars with explicit bounds checks (no force unwraps, no
/// recursion: arrays cannot nest), so any input ends in a document or a `ConfigSyntaxError`.
struct ConfigParser {
    let scalars: [Unicode.Scalar]
    private(set) var index = 0
    private(set) var line = 1
    private(set) var column = 1
    private var builder = DocumentBuilder()

    init(_ text: String) {
        scalars = Array(text.unicodeScalars)
    }

    // MARK: Document structure

    mutating func parseDocument() throws(ConfigSyntaxError) -> ConfigDocument {
        if current == "\u{FEFF}" { advance() }
        while current != nil {
            skipSpaces()
            switch current {
            case nil, "#", "\n", "\r":
                try expectEndOfLine(after: "")
            case "[":
                try parseTableHeader()
                try expectEndOfLine(after: " after the table header")
            default:
                let key = try parseKeyValue()
                try expectEndOfLine(after: " after the value of '\(ConfigTable.displayKey(key))'")
            }
        }
        return ConfigDocument(tables: builder.tables)
    }

    private mutating func parseTableHeader() throws(ConfigSyntaxError) {
        let (startLine, startColumn) = (line, column)
        advance()  // [
        if current == "[" {
            throw error("arrays of tables ([[...]]) are not supported; use a [table] header")
        }
        skipSpaces()
        let path = try parseKeyPath()
        guard path.count <= ConfigDocument.maxHeaderDepth else {
            throw ConfigSyntaxError(line: startLine, column: startColumn,
                                    message: "table header has \(path.count) names; at most \(ConfigDocument.maxHeaderDepth) are supported")
        }
        skipSpaces()
        guard current == "]" else {
            throw error("expected ']' to close the table header, or '.' between its names"
                        + found())
        }
        advance()
        try builder.defineTable(path, line: startLine, column: startColumn)
    }

    /// Returns the key, for the end-of-line message.
    private mutating func parseKeyValue() throws(ConfigSyntaxError) -> String {
        let (keyLine, keyColumn) = (line, column)
        let path = try parseKeyPath()
        guard path.count == 1, let key = path.first else {
            let dotted = path.map(ConfigTable.displayKey).joined(separator: ".")
            let table = path.dropLast().map(ConfigTable.displayKey).joined(separator: ".")
            throw ConfigSyntaxError(line: keyLine, column: keyColumn,
                                    message: "dotted keys like '\(dotted)' are not supported; write the key "
                                        + "'\(ConfigTable.displayKey(path.last ?? ""))' under a [\(table)] header")
        }
        skipSpaces()
        guard current == "=" else {
            throw error("expected '=' after the key '\(ConfigTable.displayKey(key))'" + found())
        }
        advance()
        skipSpaces()
        let value = try parseValue(insideArray: false)
        try builder.add(ConfigEntry(key: key, line: keyLine, column: keyColumn, value: value))
        return key
    }

    /// One or more keys joined by `.`, with optional spaces around the dots.
    private mutating func parseKeyPath() throws(ConfigSyntaxError) -> [String] {
        var path = [try parseSimpleKey()]
        while true {
            let save = (index, line, column)
            skipSpaces()
            guard current == "." else {
                (index, line, column) = save
                return path
            }
            advance()
            skipSpaces()
            path.append(try parseSimpleKey())
        }
    }

    private mutating func parseSimpleKey() throws(ConfigSyntaxError) -> String {
        switch current {
        case "\"":
            if peek(1) == "\"", peek(2) == "\"" { throw error("multi-line strings cannot be keys") }
            return try parseBasicString()
        case "'":
            if peek(1) == "'", peek(2) == "'" { throw error("multi-line strings cannot be keys") }
            return try parseLiteralString()
        default:
            var key = ""
            while let scalar = current, isBareKeyScalar(scalar) {
                key.unicodeScalars.append(scalar)
                advance()
            }
            guard !key.isEmpty else {
                throw error("expected a key (letters, digits, '_' and '-', or a quoted string)" + found())
            }
            return key
        }
    }

    /// After a header or a value only spaces and a comment may follow on the line.
    private mutating func expectEndOfLine(after what: String) throws(ConfigSyntaxError) {
        skipSpaces()
        if current == "#" { try skipComment() }
        switch current {
        case nil:
            return
        case "\n":
            advance()
        case "\r":
            advance()
            guard current == "\n" else { throw error("a carriage return must be followed by a newline") }
            advance()
        default:
            throw error("expected the end of the line\(what)" + found())
        }
    }

    private mutating func skipComment() throws(ConfigSyntaxError) {
        while let scalar = current, scalar != "\n", scalar != "\r" {
            if isControl(scalar) {
                throw error("control character U+\(hex4(scalar.value)) is not allowed in a comment")
            }
            advance()
        }
    }

    private mutating func skipSpaces() {
        while current == " " || current == "\t" { advance() }
    }

    /// Inside arrays: spaces, comments and line breaks.
    mutating func skipSpacesCommentsAndNewlines() throws(ConfigSyntaxError) {
        while true {
            skipSpaces()
            switch current {
            case "#":
                try skipComment()
            case "\n":
                advance()
            case "\r":
                advance()
                guard current == "\n" else { throw error("a carriage return must be followed by a newline") }
                advance()
            default:
                return
            }
        }
    }

    // MARK: Cursor

    var current: Unicode.Scalar? {
        index < scalars.count ? scalars[index] : nil
    }

    func peek(_ offset: Int) -> Unicode.Scalar? {
        let position = index + offset
        return position >= 0 && position < scalars.count ? scalars[position] : nil
    }

    mutating func advance() {
        guard let scalar = current else { return }
        index += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    func error(_ message: String) -> ConfigSyntaxError {
        ConfigSyntaxError(line: line, column: column, message: message)
    }

    /// "; found 'x'" or "; found the end of the line/file", appended to "expected ..." messages.
    func found() -> String {
        foundScalar(current)
    }

    func foundScalar(_ scalar: Unicode.Scalar?) -> String {
        switch scalar {
        case nil: "; found the end of the file"
        case "\n", "\r": "; found the end of the line"
        case let scalar? where isControl(scalar) || scalar == "\u{FEFF}": "; found U+\(hex4(scalar.value))"
        case let scalar?: "; found '\(scalar)'"
        }
    }
}

func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 48 && scalar.value <= 57
}

func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
    switch scalar {
    case "0"..."9": scalar.value - 48
    case "a"..."f": scalar.value - 87
    case "A"..."F": scalar.value - 55
    default: nil
    }
}
