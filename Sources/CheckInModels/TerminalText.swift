/// Text from outside (a config value, a command-line argument, a path, a server's message) made safe
/// to show on a terminal or in a log line.
///
/// A raw ESC can clear the screen, recolour it, rewrite the window title or fake a line; a carriage
/// return or a bidirectional override can hide what comes before it. Every message that repeats
/// such text goes through `escaped(_:)`, the one place this is decided.
public enum TerminalText {
    /// `text` with every control character (C0, DEL, C1) and every bidirectional control written as
    /// an escape (`\n`, `\r`, `\t`, `\u001B`, `\u202E`, the config file's own syntax). Everything
    /// else, backslashes included, is kept: the result contains only printable text, and escaping
    /// it again changes nothing.
    public static func escaped(_ text: some StringProtocol) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return String(text) }
        var result = ""
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                let digits = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
            }
        }
        return result
    }

    /// `escaped(text)` in double quotes, for a value inside a sentence: `"12h12h" is not a duration`.
    public static func quoted(_ text: some StringProtocol) -> String {
        "\"" + escaped(text) + "\""
    }

    /// Each line of `text` escaped on its own: for messages made of several lines, e.g. one problem
    /// per line.
    public static func escapedLines(_ text: some StringProtocol) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { escaped($0) }.joined(separator: "\n")
    }

    static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        // Bidirectional embeddings, overrides and isolates; the marks LRM/RLM/ALM are harmless.
        case 0x202A...0x202E, 0x2066...0x2069: true
        // Line and paragraph separators end a line on some terminals and in logs.
        case 0x2028, 0x2029: true
        default: false
        }
    }
}
