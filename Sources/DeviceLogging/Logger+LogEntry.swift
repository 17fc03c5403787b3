public import ComposableCore
public import Logging

extension Logger {
    /// Writes what a feature decided is worth logging.
    public func write(_ entries: [LogEntry]) {
        for entry in entries {
            let metadata = entry.metadata.isEmpty ? nil : entry.metadata.mapValues { Logger.MetadataValue.string($0) }
            log(level: Logger.Level(entry.level), "\(entry.message)", metadata: metadata)
        }
    }
}

extension Logger.Level {
    init(_ level: LogEntry.Level) {
        self = switch level {
        case .debug: .debug
        case .info: .info
        case .notice: .notice
        case .warning: .warning
        case .error: .error
        case .critical: .critical
        }
    }
}
