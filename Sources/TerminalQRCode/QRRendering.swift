/// A QR code drawn with characters, two rows of modules per line (Unicode's half blocks), with the
/// quiet zone scanners need around it.
///
/// A scanner wants dark modules on a light ground. A terminal's own colours may be either way
/// round, so `colours` sets them explicitly (black on bright white, ANSI SGR 30;107) for each line;
/// without colours (a pipe, `NO_COLOR`) the dark modules are the drawn blocks, as on paper.
public enum QRRendering {
    /// Four modules of light border: what the QR specification asks for.
    public static let quietZone = 4

    public static func halfBlocks(_ matrix: QRMatrix, colours: Bool, quietZone: Int = quietZone) -> [String] {
        let range = -quietZone ..< matrix.size + quietZone
        var lines: [String] = []
        for top in stride(from: range.lowerBound, to: range.upperBound, by: 2) {
            var line = colours ? "\u{1B}[30;107m" : ""
            for column in range {
                let upper = matrix[top, column]
                // An odd total leaves the last line's lower half outside: light, like the quiet zone.
                let lower = top + 1 < range.upperBound && matrix[top + 1, column]
                let cell: String = switch (upper, lower) {
                case (true, true): "█"
                case (true, false): "▀"
                case (false, true): "▄"
                case (false, false): " "
                }
                line += cell
            }
            lines.append(colours ? line + "\u{1B}[0m" : line)
        }
        return lines
    }

    /// One row per line, two characters per module (`##` dark): for terminals without Unicode.
    public static func ascii(_ matrix: QRMatrix, quietZone: Int = quietZone) -> [String] {
        let range = -quietZone ..< matrix.size + quietZone
        return range.map { row in range.map { matrix[row, $0] ? "##" : "  " }.joined() }
    }
}
