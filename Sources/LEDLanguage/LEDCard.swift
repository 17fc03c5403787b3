/// The printable one-page card that goes beside the device: every indicator drawn as what each
/// light does over three seconds, with its meaning. It does not depend on colour: each light has
/// its place (green on the left, amber in the middle, red on the right, as on the device) and its
/// letter, and "on" is drawn black; the colours are only a hint. Generated from the code
/// (`lifesignalctl led-card`), so it cannot drift from what the LEDs do (a test compares the
/// committed `docs/led-card.svg` with this).
public enum LEDCard {
    /// Most useful first: the everyday phases, then what asks for a press, then help alerts, then
    /// the rest.
    public static let order: [Indicator] = [
        .checkedIn, .reminder, .lastChance, .overdue, .acknowledged, .neverCheckedIn, .pingPending,
        .alertCancelWindow, .alertSending, .alertDelivered, .helpComing, .longPress, .fault, .away, .onBattery,
        .checkedInNotUploaded, .reminderNotUploaded, .identify, .starting,
    ]

    /// A watcher's card (`[device] role = "watcher"`): its glance, loudest first, then what it
    /// shares with a person's device.
    public static let watcherOrder: [Indicator] = [
        .dependentHelpAlert, .dependentOverdue, .dependentSilent, .dependentReminder, .dependentsUnknown, .dependentsOK,
        .pingConfirm, .fault, .identify, .starting,
    ]

    /// Characters per line of a meaning; every meaning fits in two lines (a test checks it).
    public static let lineWidth = 38

    /// How much of each pattern is drawn: every standard cycle fits (the longest is 3 s).
    static let window = Duration.seconds(3)

    /// The card as SVG for `language` (A4 portrait).
    public static func svg(_ language: LEDLanguage, title: String = "What the lights on the LifeSignal button mean",
                           order: [Indicator] = order) -> String {
        let width = 794, rowHeight = 68, top = 160
        let height = top + order.count * rowHeight + 60
        var out = """
            <svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" viewBox="0 0 \(width) \(max(height, 1123))" \
            font-family="DejaVu Sans, Arial, sans-serif">
            <rect width="100%" height="100%" fill="white"/>
            <text x="40" y="56" font-size="26" font-weight="bold">\(escaped(title))</text>
            <text x="40" y="84" font-size="14">\(escaped(order.contains(.dependentOverdue) && !order.contains(.checkedIn)
                ? "A press says \"I'm on it\" to whoever needs someone, or pings everyone when all is well."
                : "One press says \"I'm OK\". Hold the button for 3 seconds to ask for help."))</text>
            <text x="40" y="104" font-size="14">Each row shows what the three lights do over 3 seconds; black = the light is on.</text>
            <text x="40" y="124" font-size="14">Left = green (G), middle = amber (A), right = red (R), as on the device.</text>

            """
        let strip = 150, gap = 14, stripTop = 136
        for (column, led) in language.leds.enumerated() {
            let x = 40 + column * (strip + gap)
            out += "<text x=\"\(x)\" y=\"\(stripTop + 10)\" font-size=\"13\" font-weight=\"bold\">"
                + "\(escaped(led.name.prefix(1).uppercased())) \(escaped(led.name))</text>\n"
        }
        for (row, indicator) in order.enumerated() {
            let y = top + row * rowHeight
            let pattern = language.pattern(for: indicator)
            for (column, led) in language.leds.enumerated() {
                let x = 40 + column * (strip + gap)
                out += lane(pattern.waveform(for: led), x: x, y: y + 8, width: strip, hint: hint(led.colour))
            }
            let textX = 40 + language.leds.count * (strip + gap) + 6
            out += "<text x=\"\(textX)\" y=\"\(y + 22)\" font-size=\"15\" font-weight=\"bold\">\(escaped(words(indicator)))</text>\n"
            for (index, line) in wrapped(indicator.meaning, width: lineWidth).enumerated() {
                out += "<text x=\"\(textX)\" y=\"\(y + 40 + index * 15)\" font-size=\"12\">\(escaped(line))</text>\n"
            }
            out += "<line x1=\"40\" y1=\"\(y + rowHeight - 4)\" x2=\"\(width - 40)\" y2=\"\(y + rowHeight - 4)\" stroke=\"#bbb\"/>\n"
        }
        out += "<text x=\"40\" y=\"\(top + order.count * rowHeight + 30)\" font-size=\"12\">Generated from the device's own "
            + "LED patterns (lifesignalctl led-card).</text>\n</svg>\n"
        return out
    }

    /// One light's behaviour over the window: a framed lane, black where it is on, with a thin
    /// coloured edge as a hint.
    static func lane(_ waveform: Waveform, x: Int, y: Int, width: Int, hint: String) -> String {
        let height = 30
        var out = "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(width)\" height=\"\(height)\" fill=\"white\" stroke=\"black\"/>\n"
        out += "<rect x=\"\(x)\" y=\"\(y + height)\" width=\"\(width)\" height=\"4\" fill=\"\(hint)\"/>\n"
        let total = window.components.seconds * 1_000_000 + window.components.attoseconds / 1_000_000_000_000
        var start: Int64?
        var position: Int64 = 0
        let step: Int64 = 10_000  // 10 ms: finer than any step of a pattern
        while position <= total {
            let on = position < total && waveform.level(at: .microseconds(position))
            if on, start == nil { start = position }
            if !on, let from = start {
                let left = x + Int(from * Int64(width) / total), right = x + Int(position * Int64(width) / total)
                out += "<rect x=\"\(left)\" y=\"\(y + 3)\" width=\"\(max(right - left, 1))\" height=\"\(height - 6)\" fill=\"black\"/>\n"
                start = nil
            }
            position += step
        }
        return out
    }

    /// `alert_cancel_window` → "Alert cancel window".
    static func words(_ indicator: Indicator) -> String {
        let text = indicator.rawValue.split(separator: "_").joined(separator: " ")
        return text.prefix(1).uppercased() + text.dropFirst()
    }

    static func hint(_ colour: String) -> String {
        ["green": "#2e9e44", "amber": "#f0a000", "red": "#d02020"][colour] ?? "#888"
    }

    public static func wrapped(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }

    static func escaped<S: StringProtocol>(_ text: S) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
