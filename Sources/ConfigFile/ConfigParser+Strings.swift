/// Basic strings (with escapes) and literal strings; both end at the line end.
extension ConfigParser {
    mutating func parseBasicString() throws(ConfigSyntaxError) -> String {
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

    mutating func parseEscape() throws(ConfigSyntaxError) -> Unicode.Scalar {
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

    mutating func parseLiteralString() throws(ConfigSyntaxError) -> String {
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
}
