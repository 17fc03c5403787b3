import CheckInModels

/// One thing wrong with the configuration: where it is, which key, and what is allowed instead.
public struct ConfigProblem: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Source: Hashable, Sendable {
        /// A place in the config file (1-based line and column).
        case file(path: String, line: Int, column: Int)
        /// An environment variable that overrides a key.
        case environment(variable: String)
    }

    public var source: Source
    /// The full key, e.g. `check_in.reminder` or `leds.green.line`; a table for table problems;
    /// nil for syntax errors, which belong to no key.
    public var key: String?
    /// What is wrong and what is allowed.
    public var message: String

    public init(source: Source, key: String?, message: String) {
        self.source = source
        self.key = key
        self.message = message
    }

    /// `path:line:column: key: message`, or `environment variable NAME: key: message`, one line
    /// that is safe to print: control characters in the path, a key or a quoted value are escaped.
    public var description: String {
        let place = switch source {
        case .file(let path, let line, let column): "\(path):\(line):\(column)"
        case .environment(let variable): "environment variable \(variable)"
        }
        return TerminalText.escaped(place + ": " + (key.map { "\($0): " } ?? "") + message)
    }
}

/// Every problem found in one load, so a person fixes the file in one go instead of one error per restart.
public struct ConfigErrors: Error, Hashable, Sendable, CustomStringConvertible {
    /// In file order, then environment problems. Never empty.
    public var problems: [ConfigProblem]

    public init(_ problems: [ConfigProblem]) {
        self.problems = problems
    }

    /// One problem per line.
    public var description: String {
        problems.map(\.description).joined(separator: "\n")
    }
}
