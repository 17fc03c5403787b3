extension DeviceConfiguration {
    /// `load(text:path:environment:)` for a config file's bytes as read from disk (nil: no file).
    ///
    /// Bytes that are not valid UTF-8 are refused with their line, column and byte offset instead of
    /// being replaced by U+FFFD: a stray byte in a path would otherwise load as another path.
    public static func load(
        contents: [UInt8]?, path: String, environment: [String: String]
    ) -> Result<DeviceConfiguration, ConfigErrors> {
        guard let contents else { return load(text: nil, path: path, environment: environment) }
        switch UTF8Text.decode(contents) {
        case let .success(text):
            return load(text: text, path: path, environment: environment)
        case let .failure(problem):
            let hex = String(problem.byte, radix: 16, uppercase: true)
            return .failure(ConfigErrors([ConfigProblem(
                source: .file(path: path, line: problem.line, column: problem.column), key: nil,
                message: "the file is not valid UTF-8 at byte offset \(problem.offset) "
                    + "(0x\(hex.count == 1 ? "0" : "")\(hex)); save it as UTF-8")]))
        }
    }
}

/// Strict UTF-8 decoding that says where the first invalid byte is.
enum UTF8Text {
    struct Invalid: Error, Hashable {
        /// 0-based offset of the first byte of the invalid sequence in the whole input.
        var offset: Int
        var byte: UInt8
        /// 1-based, counted as the config parser counts: lines by "\n", columns in Unicode scalars.
        var line: Int
        var column: Int
    }

    static func decode(_ bytes: [UInt8]) -> Result<String, Invalid> {
        var index = 0
        var line = 1
        var column = 1
        while index < bytes.count {
            let length = sequenceLength(bytes, at: index)
            guard length > 0 else {
                return .failure(Invalid(offset: index, byte: bytes[index], line: line, column: column))
            }
            if bytes[index] == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
            index += length
        }
        return .success(String(decoding: bytes, as: UTF8.self))
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (RFC 3629, table 3-7 of
    /// the Unicode standard: no overlong forms, no surrogates, nothing above U+10FFFF), or 0.
    private static func sequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.count && range.contains(bytes[index + offset])
        }
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: return continuation(1) ? 2 : 0
        case 0xE0: return continuation(1, 0xA0...0xBF) && continuation(2) ? 3 : 0
        case 0xE1...0xEC, 0xEE...0xEF: return continuation(1) && continuation(2) ? 3 : 0
        case 0xED: return continuation(1, 0x80...0x9F) && continuation(2) ? 3 : 0
        case 0xF0: return continuation(1, 0x90...0xBF) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF1...0xF3: return continuation(1) && continuation(2) && continuation(3) ? 4 : 0
        case 0xF4: return continuation(1, 0x80...0x8F) && continuation(2) && continuation(3) ? 4 : 0
        default: return 0
        }
    }
}
