public import Logging
import Glibc
import Synchronization

/// One line per event on stderr. Under systemd (stderr connected to the journal, `JOURNAL_STREAM`
/// set) each line starts with its syslog priority `<N>` so journald files it at the right level and
/// adds its own timestamp; in a terminal the line carries a short local time instead.
public struct DeviceLogHandler: LogHandler {
    public var logLevel: Logger.Level
    public var metadata: Logger.Metadata = [:]
    private let label: String
    private let journal: Bool
    private let sink: LogSink

    public init(label: String, level: Logger.Level, journal: Bool, sink: LogSink) {
        self.label = label
        self.logLevel = level
        self.journal = journal
        self.sink = sink
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields = metadata
        if let extra = event.metadata { fields.merge(extra) { $1 } }
        let details = fields.isEmpty ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(event.message)\(details)".replacingNewlines()
        if journal {
            sink.write("<\(Self.priority(event.level))>\(text)")
        } else {
            sink.write("\(Self.localTime()) \(event.level.rawValue.uppercased()) \(text)")
        }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }

    static func localTime() -> String {
        var now = time(nil)
        var parts = tm()
        localtime_r(&now, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }
}

/// Where log lines go: stderr, or through the terminal view so they don't garble its status line.
public final class LogSink: Sendable {
    /// The closure sits inside a struct, never directly in the Mutex: a bare closure as
    /// `Mutex<Value>`'s generic value is re-abstracted on every `withLock { $0 }`, and the
    /// `inout sending` write-back stores the wrapper back, so each line wrapped the writer in one
    /// more thunk (Swift 6.3.1, -O and -Onone): ~100 bytes of heap and one more stack frame per
    /// line, calls slower with every line, a stack overflow after ~100,000 lines (BENCHMARKS.md).
    private struct Writer: Sendable {
        let write: @Sendable (String) -> Void
    }

    private let writer: Mutex<Writer>

    public init() {
        writer = Mutex(Writer(write: Self.standardError))
    }

    private static let standardError: @Sendable (String) -> Void = { line in
        var text = line + "\n"
        text.withUTF8 { buffer in _ = Glibc.write(STDERR_FILENO, buffer.baseAddress, buffer.count) }
    }

    /// Sends lines to `write` instead; nil sends them to stderr again.
    public func redirect(_ write: (@Sendable (String) -> Void)?) {
        writer.withLock { $0 = Writer(write: write ?? Self.standardError) }
    }

    public func write(_ line: String) {
        let write = writer.withLock { $0.write }
        write(line)
    }
}

extension String {
    /// Log lines are one line each, whatever a message contains.
    func replacingNewlines() -> String {
        // Every line is checked, so the usual answer (no line break) comes from the bytes: each
        // character `isNewline` accepts (U+000A–000D, U+0085, U+2028, U+2029) starts with one of
        // these bytes in UTF-8; walking Characters costs grapheme breaking for every character.
        guard utf8.contains(where: { (0x0A...0x0D).contains($0) || $0 == 0xC2 || $0 == 0xE2 }),
              contains(where: \.isNewline) else { return self }
        return String(map { $0.isNewline ? " " : $0 })
    }
}
