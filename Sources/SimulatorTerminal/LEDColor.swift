/// The colour an LED is drawn in on the terminal, from the colour name in the configuration.
public enum LEDColor: String, Hashable, Sendable, CaseIterable {
    case green, amber, yellow, red, blue, white
    /// Any colour the terminal has no name for: drawn in the terminal's default colour.
    case `default`

    /// "green", "Amber", ... ; anything unknown becomes `.default` rather than an error, because a
    /// colour on a development terminal is not worth refusing to start for.
    public init(configName: String) {
        self = LEDColor(rawValue: configName.lowercased()) ?? .default
    }

    /// The ANSI SGR foreground code. Amber has no ANSI colour of its own: yellow is the closest.
    var sgrForeground: Int {
        switch self {
        case .green: 32
        case .amber, .yellow: 33
        case .red: 31
        case .blue: 34
        case .white: 37
        case .default: 39
        }
    }
}
