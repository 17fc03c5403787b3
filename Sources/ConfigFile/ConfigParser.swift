/// A single-pass, non-recursive scanner for the TOML subset described on `ConfigDocument`.
///
/// It walks an array of Unicode scalars with explicit bounds checks (no force unwraps, no
/// recursion: arrays cannot nest), so any input ends in a document or a `ConfigSyntaxError`.
struct ConfigParser {
    private let scalars: [Unicode.Scalar]
    private var index = 0
    private var line = 1
    private var column = 1
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
    private mutating func skipSpacesCommentsAndNewlines() throws(ConfigSyntaxError) {
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

    // MARK: Values

    private static let expectedValue =
        "expected a value: a \"string\", a 'literal string', an integer, true, false or an [array]"

    private mutating func parseValue(insideArray: Bool) throws(ConfigSyntaxError) -> ConfigValue {
        let (valueLine, valueColumn) = (line, column)
        func value(_ kind: ConfigValue.Kind) -> ConfigValue {
            ConfigValue(kind, line: valueLine, column: valueColumn)
        }
        switch current {
        case nil, "\n", "\r", "#":
            throw error(Self.expectedValue + found())
        case "\"":
            if peek(1) == "\"", peek(2) == "\"" {
                throw error("multi-line strings (\"\"\"...\"\"\") are not supported; write the text on one line using \\n")
            }
            return value(.string(try parseBasicString()))
        case "'":
            if peek(1) == "'", peek(2) == "'" {
                throw error("multi-line literal strings ('''...''') are not supported; write the text on one line")
            }
            return value(.string(try parseLiteralString()))
        case "[":
            if insideArray {
                throw error("arrays inside arrays are not supported")
            }
            return value(.array(try parseArray()))
        case "{":
            throw error("inline tables ({ ... }) are not supported; use a [table] header")
        default:
            return value(try parseBareValue())
        }
    }

    /// `true`, `false` or a decimal integer; anything else that looks like a float or a date is
    /// named as unsupported rather than as a generic syntax error.
    private mutating func parseBareValue() throws(ConfigSyntaxError) -> ConfigValue.Kind {
        let (tokenLine, tokenColumn) = (line, column)
        var token: [Unicode.Scalar] = []
        while let scalar = current, isBareKeyScalar(scalar) || scalar == "+" || scalar == "." || scalar == ":" {
            token.append(scalar)
            advance()
        }
        func failure(_ message: String) -> ConfigSyntaxError {
            ConfigSyntaxError(line: tokenLine, column: tokenColumn, message: message)
        }
        let text = String(String.UnicodeScalarView(token))
        switch text {
        case "":
            throw failure(Self.expectedValue + foundScalar(current))
        case "true":
            return .bool(true)
        case "false":
            return .bool(false)
        case "inf", "+inf", "-inf", "nan", "+nan", "-nan":
            throw failure("floating-point numbers are not supported")
        default:
            break
        }
        let unsigned = token.first == "+" || token.first == "-" ? Array(token.dropFirst()) : token
        if text.lowercased() == "true" || text.lowercased() == "false" {
            throw failure("booleans are written in lowercase: \(text.lowercased())")
        }
        guard let first = unsigned.first, isDigit(first) else {
            throw failure(Self.expectedValue + "; found '\(text)' (text values need quotes: \"\(text)\")")
        }
        if looksLikeDateOrTime(token) {
            throw failure("dates and times are not supported; write them as a quoted string")
        }
        if unsigned.count > 1, first == "0", let radix = unsigned.dropFirst().first, radix == "x" || radix == "o" || radix == "b" {
            throw failure("hexadecimal, octal and binary integers are not supported; write a decimal number")
        }
        if token.contains(".") || token.contains("e") || token.contains("E") {
            throw failure("floating-point numbers are not supported; write a whole number")
        }
        return .integer(try parseDecimal(token, failure: failure))
    }

    private func looksLikeDateOrTime(_ token: [Unicode.Scalar]) -> Bool {
        let digits = token.prefix(while: isDigit)
        guard digits.count < token.count else { return false }
        let next = token[digits.count]
        return (digits.count == 4 && next == "-") || (digits.count == 2 && next == ":")
    }

    private func parseDecimal(
        _ token: [Unicode.Scalar], failure: (String) -> ConfigSyntaxError
    ) throws(ConfigSyntaxError) -> Int64 {
        let negative = token.first == "-"
        let body = token.first == "+" || token.first == "-" ? Array(token.dropFirst()) : token
        let text = String(String.UnicodeScalarView(token))
        var magnitude: UInt64 = 0
        var digitCount = 0
        var previousWasDigit = false
        for scalar in body {
            if scalar == "_" {
                guard previousWasDigit else {
                    throw failure("'\(text)' is not an integer: '_' may only stand between two digits")
                }
                previousWasDigit = false
                continue
            }
            guard isDigit(scalar) else {
                throw failure("'\(text)' is not an integer: expected only digits, '_' between digits and a leading sign")
            }
            let (product, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(UInt64(scalar.value - 48))
            guard !overflow1, !overflow2, sum <= UInt64(Int64.max) + (negative ? 1 : 0) else {
                throw failure("integer '\(text)' is out of range (-9223372036854775808 to 9223372036854775807)")
            }
            magnitude = sum
            digitCount += 1
            previousWasDigit = true
        }
        guard previousWasDigit else {
            throw failure("'\(text)' is not an integer: '_' may only stand between two digits")
        }
        if body.first == "0", digitCount > 1 {
            throw failure("'\(text)' is not an integer: leading zeros are not allowed")
        }
        if negative {
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return Int64(magnitude)
    }

    /// Values separated by commas between `[` and `]`, across lines, with an optional trailing comma.
    private mutating func parseArray() throws(ConfigSyntaxError) -> [ConfigValue] {
        let (openLine, openColumn) = (line, column)
        advance()  // [
        var values: [ConfigValue] = []
        while true {
            try skipSpacesCommentsAndNewlines()
            if current == "]" { advance(); return values }
            if current == nil {
                throw error("unterminated array: expected ']' to close the array opened at \(openLine):\(openColumn)")
            }
            values.append(try parseValue(insideArray: true))
            try skipSpacesCommentsAndNewlines()
            switch current {
            case ",":
                advance()
            case "]":
                advance()
                return values
            case nil:
                throw error("unterminated array: expected ']' to close the array opened at \(openLine):\(openColumn)")
            default:
                throw error("expected ',' or ']' in the array opened at \(openLine):\(openColumn)" + found())
            }
        }
    }

    // MARK: Strings

    private mutating func parseBasicString() throws(ConfigSyntaxError) -> String {
        let (openLine, openColumn) = (line, column)
        advance()  // "
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current, scalar != "\n", scalar != "\r" else {
                throw ConfigSyntaxError(line: openLine, column: openColumn,
                                        message: "unterminated string: expected a closing '\"' before the end of the line")
            }
            switch scalar {
            case "\"":
                advance()
                return String(result)
            case "\\":
                result.append(try parseEscape())
            default:
                if isControl(scalar) {
                    throw error("control character U+\(hex4(scalar.value)) must be written as an escape such as \\u\(hex4(scalar.value))")
                }
                result.append(scalar)
                advance()
            }
        }
    }

    private mutating func parseEscape() throws(ConfigSyntaxError) -> Unicode.Scalar {
        let (escapeLine, escapeColumn) = (line, column)
        advance()  // backslash
        let allowed = "allowed escapes are \\\" \\\\ \\b \\f \\n \\r \\t \\uXXXX and \\UXXXXXXXX"
        guard let letter = current else {
            throw ConfigSyntaxError(line: escapeLine, column: escapeColumn,
                                    message: "unterminated string: expected a closing '\"' before the end of the file")
        }
        let simple: [Unicode.Scalar: Unicode.Scalar] = [
            "\"": "\"", "\\": "\\", "b": "\u{08}", "f": "\u{0C}", "n": "\n", "r": "\r", "t": "\t",
        ]
        if let replacement = simple[letter] {
            advance()
            return replacement
        }
        guard letter == "u" || letter == "U" else {
            throw ConfigSyntaxError(line: escapeLine, column: escapeColumn,
                                    message: "invalid escape '\\\(letter.escaped(asASCII: true))' in a string; \(allowed)")
        }
        advance()
        let width = letter == "u" ? 4 : 8
        var value: UInt32 = 0
        for _ in 0..<width {
            guard let digit = current, let nibble = hexValue(digit) else {
                throw ConfigSyntaxError(line: escapeLine, column: escapeColumn,
                                        message: "invalid escape: \\\(letter) needs exactly \(width) hexadecimal digits")
            }
            value = value << 4 | nibble
            advance()
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw ConfigSyntaxError(line: escapeLine, column: escapeColumn,
                                    message: "invalid escape: U+\(String(value, radix: 16, uppercase: true)) is not a Unicode scalar value")
        }
        return scalar
    }

    private mutating func parseLiteralString() throws(ConfigSyntaxError) -> String {
        let (openLine, openColumn) = (line, column)
        advance()  // '
        var result = String.UnicodeScalarView()
        while true {
            guard let scalar = current, scalar != "\n", scalar != "\r" else {
                throw ConfigSyntaxError(line: openLine, column: openColumn,
                                        message: "unterminated literal string: expected a closing \"'\" before the end of the line")
            }
            if scalar == "'" {
                advance()
                return String(result)
            }
            if isControl(scalar) {
                throw error("control character U+\(hex4(scalar.value)) is not allowed in a literal string; use a \"basic string\" with an escape")
            }
            result.append(scalar)
            advance()
        }
    }

    // MARK: Cursor

    private var current: Unicode.Scalar? {
        index < scalars.count ? scalars[index] : nil
    }

    private func peek(_ offset: Int) -> Unicode.Scalar? {
        let position = index + offset
        return position >= 0 && position < scalars.count ? scalars[position] : nil
    }

    private mutating func advance() {
        guard let scalar = current else { return }
        index += 1
        if scalar == "\n" {
            line += 1
            column = 1
        } else {
            column += 1
        }
    }

    private func error(_ message: String) -> ConfigSyntaxError {
        ConfigSyntaxError(line: line, column: column, message: message)
    }

    /// "; found 'x'" or "; found the end of the line/file", appended to "expected ..." messages.
    private func found() -> String {
        foundScalar(current)
    }

    private func foundScalar(_ scalar: Unicode.Scalar?) -> String {
        switch scalar {
        case nil: "; found the end of the file"
        case "\n", "\r": "; found the end of the line"
        case let scalar? where isControl(scalar) || scalar == "\u{FEFF}": "; found U+\(hex4(scalar.value))"
        case let scalar?: "; found '\(scalar)'"
        }
    }
}

private func isDigit(_ scalar: Unicode.Scalar) -> Bool {
    scalar.value >= 48 && scalar.value <= 57
}

private func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
    switch scalar {
    case "0"..."9": scalar.value - 48
    case "a"..."f": scalar.value - 87
    case "A"..."F": scalar.value - 55
    default: nil
    }
}
