/// A line worth logging, decided by a feature from what an action did (before and after), so that
/// "what is worth telling the operator" is pure logic with tests; the root writes it to the log.
public struct LogEntry: Hashable, Sendable, CustomStringConvertible {
    /// The syslog levels the daemon's log handler maps to journald priorities.
    public enum Level: String, Hashable, Sendable, Comparable {
        case debug, info, notice, warning, error, critical

        private var rank: Int {
            switch self {
            case .debug: 0
            case .info: 1
            case .notice: 2
            case .warning: 3
            case .error: 4
            case .critical: 5
            }
        }

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.rank < rhs.rank }
    }

    public var level: Level
    public var message: String
    public var metadata: [String: String]

    public init(_ level: Level, _ message: String, metadata: [String: String] = [:]) {
        self.level = level
        self.message = message
        self.metadata = metadata
    }

    public var description: String {
        let fields = metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        return "\(level.rawValue): \(message)" + (fields.isEmpty ? "" : " [\(fields)]")
    }
}
