/// Why a config file is not valid (supported) TOML, and where: `line:column: message`.
///
/// The message says what was expected at that point, so the person editing the file can fix it
/// without knowing the TOML specification.
public struct ConfigSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// 1-based line.
    public var line: Int
    /// 1-based column, counted in Unicode scalars.
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "\(line):\(column): \(message)" }
}
