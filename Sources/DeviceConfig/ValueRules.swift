import ConfigFile
import CheckInModels

/// Why a value was refused: the message says what was found and what is allowed.
struct Refusal: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// Conversions from a config value to a typed setting; each refusal names what is allowed.
enum ValueRules {
    typealias Rule<T> = (ConfigValue) -> Result<T, Refusal>

    /// "the integer 30", "the string \"x\"", for "found ..." in messages.
    static func describe(_ value: ConfigValue) -> String {
        switch value.kind {
        case .string(let text): "the string \(TerminalText.quoted(text))"
        case .integer(let number): "the integer \(number)"
        case .bool(let flag): "the boolean \(flag)"
        case .array: "an array"
        }
    }

    static func bool(_ value: ConfigValue) -> Result<Bool, Refusal> {
        guard let flag = value.boolValue else {
            return .failure(Refusal("expected true or false (without quotes); found \(describe(value))"))
        }
        return .success(flag)
    }

    static func integer(in range: ClosedRange<Int>) -> Rule<Int> {
        { value in
            let allowed = "a whole number from \(range.lowerBound) to \(range.upperBound)"
            guard let number = value.integerValue else {
                return .failure(Refusal("expected \(allowed) (without quotes); found \(describe(value))"))
            }
            guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
                return .failure(Refusal("\(number) is out of range; expected \(allowed)"))
            }
            return .success(Int(number))
        }
    }

    /// A duration string such as "30ms"; `range` nil means any non-negative duration.
    static func duration(in range: ClosedRange<Duration>?) -> Rule<Duration> {
        { value in
            let allowed = range.map {
                "a duration from \(DurationText.format($0.lowerBound)) to \(DurationText.format($0.upperBound))"
            } ?? "a duration"
            let units = "written as whole numbers with units d, h, m, s or ms, e.g. \"30ms\", \"1h30m\""
            guard let text = value.stringValue else {
                return .failure(Refusal("expected \(allowed) in quotes, \(units); found \(describe(value))"))
            }
            let shown = TerminalText.quoted(text)
            if text.drop(while: { $0 == " " }).hasPrefix("-") {
                return .failure(Refusal("\(shown) is negative, which is impossible; expected \(allowed)"))
            }
            let duration: Duration
            switch DurationText.parsing(text) {
            case let .success(parsed):
                duration = parsed
            case let .failure(problem) where problem.isAboutUnitOrder:
                return .failure(Refusal("\(shown) is not a duration: \(problem.message)"))
            case .failure:
                return .failure(Refusal("\(shown) is not a duration; expected \(allowed), \(units)"))
            }
            if let range, !range.contains(duration) {
                return .failure(Refusal("\(shown) is out of range; expected \(allowed)"))
            }
            return .success(duration)
        }
    }

    /// One of an enumeration's raw values, suggesting the closest on a typo.
    static func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) -> Rule<Choice>
        where Choice.RawValue == String
    {
        { value in
            let names = Choice.allCases.map(\.rawValue)
            let allowed = "one of " + names.map { "\"\($0)\"" }.joined(separator: ", ")
            guard let text = value.stringValue else {
                return .failure(Refusal("expected \(allowed); found \(describe(value))"))
            }
            guard let choice = Choice(rawValue: text) else {
                return .failure(Refusal("\(TerminalText.quoted(text)) is not allowed; expected \(allowed)"
                                        + Suggestion.hint(for: text, among: names)))
            }
            return .success(choice)
        }
    }

    /// Text that must not be empty and must not hide control characters (paths, names, colours).
    static func text(_ what: String) -> Rule<String> {
        { value in
            guard let text = value.stringValue else {
                return .failure(Refusal("expected \(what) in quotes; found \(describe(value))"))
            }
            return checkedText(text, what).map { .success($0) } ?? .failure(Refusal(
                text.isEmpty ? "expected \(what); found an empty string"
                    : "expected \(what) without control characters"))
        }
    }

    /// An absolute path to a file, at most `maxBytes` bytes of UTF-8.
    static func absolutePath(_ what: String, maxBytes: Int = 4095) -> Rule<String> {
        { value in
            text(what)(value).flatMap { path in checkPath(path, what: what, maxBytes: maxBytes) }
        }
    }

    static func checkPath(_ path: String, what: String, maxBytes: Int) -> Result<String, Refusal> {
        guard checkedText(path, what) != nil else {
            return .failure(Refusal("expected \(what), an absolute path; found an empty text or control characters"))
        }
        guard path.hasPrefix("/") else {
            return .failure(Refusal("\(TerminalText.quoted(path)) is not an absolute path; expected \(what) starting with '/'"))
        }
        guard !path.hasSuffix("/") else {
            return .failure(Refusal("\(TerminalText.quoted(path)) names a directory; expected \(what), a file path"))
        }
        guard path.utf8.count <= maxBytes else {
            return .failure(Refusal("the path is \(path.utf8.count) bytes long; \(what) may be at most \(maxBytes) bytes"))
        }
        return .success(path)
    }

    /// A GPIO line: a line name ("GPIO17") or an offset (17 or "17").
    static func gpioLine(_ value: ConfigValue) -> Result<GPIOLine, Refusal> {
        let range = GPIOLine.offsetRange
        let allowed = "a line name such as \"GPIO17\" or an offset from \(range.lowerBound) to \(range.upperBound)"
        func offset(_ number: Int64, _ written: String) -> Result<GPIOLine, Refusal> {
            if number < 0 { return .failure(Refusal("line offset \(written) is negative, which is impossible; expected \(allowed)")) }
            guard number <= Int64(range.upperBound) else {
                return .failure(Refusal("line offset \(written) is out of range; expected \(allowed)"))
            }
            return .success(.offset(Int(number)))
        }
        switch value.kind {
        case .integer(let number):
            return offset(number, "\(number)")
        case .string(let text):
            if !text.isEmpty, text.utf8.count <= 12, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let number = Int64(text) {
                return offset(number, "\"\(text)\"")
            }
            guard let name = checkedText(text, "a line name") else {
                return .failure(Refusal("expected \(allowed); found an empty string or control characters"))
            }
            return .success(.name(name))
        default:
            return .failure(Refusal("expected \(allowed); found \(describe(value))"))
        }
    }

    private static func checkedText(_ text: String, _: String) -> String? {
        guard !text.isEmpty,
              !text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else { return nil }
        return text
    }
}
