/// Values: strings are in ConfigParser+Strings.swift; arrays hold no arrays, so nothing recurses.
extension ConfigParser {
    static let expectedValue =
        "expected a value: a \"string\", a 'literal string', an integer, true, false or an [array]"

    mutating func parseValue(insideArray: Bool) throws(ConfigSyntaxError) -> ConfigValue {
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
    mutating func parseBareValue() throws(ConfigSyntaxError) -> ConfigValue.Kind {
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

    func looksLikeDateOrTime(_ token: [Unicode.Scalar]) -> Bool {
        let digits = token.prefix(while: isDigit)
        guard digits.count < token.count else { return false }
        let next = token[digits.count]
        return (digits.count == 4 && next == "-") || (digits.count == 2 && next == ":")
    }

    func parseDecimal(
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
    mutating func parseArray() throws(ConfigSyntaxError) -> [ConfigValue] {
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
}
