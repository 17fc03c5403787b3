/// The simulator's one status line: the LEDs as coloured dots, then a caption. Pure, so it can be
/// tested without a terminal; `SimulatorTerminal` puts it on the screen.
public enum StatusLine {
    public static let litGlyph: Character = "●"
    public static let darkGlyph: Character = "○"

    /// Renders `levels` (LED index → lit) in `colors` (missing entries use `.default`), followed
    /// by `caption`. With `width`, the caption is shortened with "…" so the line never wraps (a
    /// wrapped line cannot be redrawn in place). Without colour it is plain text.
    public static func render(
        levels: [Bool],
        colors: [LEDColor],
        caption: String,
        width: Int? = nil,
        useColor: Bool = true
    ) -> String {
        let leds = levels.enumerated().map { index, lit in
            led(lit: lit, color: index < colors.count ? colors[index] : .default, useColor: useColor)
        }
        var line = leds.joined(separator: " ")
        let ledColumns = levels.isEmpty ? 0 : levels.count * 2 - 1
        guard !caption.isEmpty else { return line }
        let separator = levels.isEmpty ? "" : "  "
        var shownCaption = caption
        if let width {
            // Leave the last column free: writing into it makes some terminals wrap at once.
            let room = width - 1 - ledColumns - separator.count
            shownCaption = truncated(caption, toColumns: room)
        }
        guard !shownCaption.isEmpty else { return line }
        line += separator + shownCaption
        return line
    }

    static func led(lit: Bool, color: LEDColor, useColor: Bool) -> String {
        let glyph = lit ? litGlyph : darkGlyph
        guard useColor else { return String(glyph) }
        // A dark LED is drawn dim in its own colour, so one can still tell which is which.
        let style = lit ? "1;\(color.sgrForeground)" : "2;\(color.sgrForeground)"
        return "\u{1B}[\(style)m\(glyph)\u{1B}[0m"
    }

    /// Shortens `text` to at most `columns` characters, ending in "…" when shortened. Counts one
    /// column per Character (captions are ours: no wide CJK glyphs).
    static func truncated(_ text: String, toColumns columns: Int) -> String {
        guard columns > 0 else { return "" }
        guard text.count > columns else { return text }
        return String(text.prefix(columns - 1)) + "…"
    }
}
