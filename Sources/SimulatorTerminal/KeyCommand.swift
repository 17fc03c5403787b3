/// What a key does in the simulator terminal.
public enum KeyCommand: Hashable, Sendable {
    /// Space or Enter: a short press of the button.
    case shortPress
    /// `l`: a long press (held for the configured long-press duration).
    case longPress
    /// `q`, Ctrl-C or Ctrl-D: ask the daemon to stop.
    case quit

    /// The command for one byte read from the terminal in raw mode, if any. Bytes of escape
    /// sequences (arrow keys, ...) are ignored: none of them is a command byte on its own except
    /// letters, and `l`/`q` in those sequences do not occur in the common ones (ESC [ A..D, ESC O P..S).
    public init?(byte: UInt8) {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\r"), UInt8(ascii: "\n"): self = .shortPress
        case UInt8(ascii: "l"), UInt8(ascii: "L"): self = .longPress
        case UInt8(ascii: "q"), UInt8(ascii: "Q"), 0x03, 0x04: self = .quit
        default: return nil
        }
    }
}
