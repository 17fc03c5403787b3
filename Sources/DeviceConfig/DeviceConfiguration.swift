public import CheckInModels
public import LEDLanguage

/// The device's validated configuration. Every key has a default, so the simulated demo needs no
/// file at all; `deploy/lifesignald.toml` documents every key.
public struct DeviceConfiguration: Hashable, Sendable {
    /// Where the daemon looks for its config file unless told otherwise.
    public static let defaultConfigPath = "/etc/lifesignal/lifesignald.toml"

    /// `[check_in] interval` / `reminder`, validated with `settingsPolicy`. Nil when the file sets
    /// neither: keep what the device has stored (a fresh device uses `CheckInSettings.default`).
    /// When only one is set, the other is `CheckInSettings.default`'s.
    public var configuredSettings: CheckInSettings?
    /// `[developer] short_intervals`: allow second-scale intervals for demos and end-to-end tests.
    public var developerShortIntervals: Bool
    public var button: ButtonConfiguration
    public var gpio: GPIOConfiguration
    /// `[leds] order` with each LED's `[leds.<name>]` wiring, in order.
    public var leds: [LEDWiring]
    /// The configured LEDs and every indicator's pattern (`[patterns.<indicator>]` or the standard one).
    public var ledLanguage: LEDLanguage
    /// `[feedback] acknowledgement`: how long the acknowledgement pattern shows after a check-in.
    public var acknowledgement: Duration
    /// `[store] path`: the SQLite database file (absolute).
    public var storePath: String
    /// `[control] socket`: the operator control socket (absolute).
    public var controlSocket: String
    public var simulator: SimulatorConfiguration
    /// `[log] level`.
    public var logLevel: LogLevel
    /// `[uplink]`: the backend check-ins are uploaded to; nil = an offline device.
    public var uplink: UplinkConfiguration?
    /// `[alert]`: the help alert a long press sends.
    public var alert: AlertConfiguration
    /// `[healthchecks]`: a healthchecks.io-compatible instance pinged per check-in; nil = none.
    public var healthchecks: HealthchecksConfiguration?
    /// `[mqtt]`: an MQTT broker (Home Assistant); nil = none.
    public var mqtt: MQTTConfiguration? = nil
    /// `[device]`: a person's device, a watcher, or both.
    public var device = DeviceRoleConfiguration()
    /// `[dependents]`: a watcher's configured dependents and how their sources are asked.
    public var dependents = DependentsConfiguration()

    // Daily life (docs/daily-life.md): set after `init` by the loader, each at its default here.
    /// `[check_in] schedule`, `windows`, `monday` … `sunday`: a rolling interval or daily windows.
    public var schedule: CheckInSchedule = .interval
    /// `[check_in] grace`: the last-chance warning between the deadline and overdue.
    public var grace: Duration = .seconds(15 * 60)
    /// `[check_in] time_zone`: the windows' and quiet hours' zone; nil = the system's.
    public var timeZone: String?
    /// Where `time_zone` was set, for the message when the system has no such zone.
    public var timeZoneSource: ConfigProblem.Source?
    /// `[away] press_ends`: a check-in while away ends it.
    public var awayPressEnds = true
    /// `[quiet_hours] from` / `to`; nil = none.
    public var quietHours: QuietHours?
    /// `[buzzer]`; nil = no buzzer.
    public var buzzer: BuzzerConfiguration?
    /// `[power]`: the mains-present and low-battery lines, each optional.
    public var power = PowerConfiguration()
    /// `[developer] trust_wall_clock`: take the wall clock as synchronised (demos and end-to-end
    /// tests on machines no NTP client disciplines; daily windows need a local time).
    public var developerTrustWallClock = false

    /// Something can deliver a help alert: the backend, or a healthchecks alert check.
    public var canDeliverAlerts: Bool { uplink != nil || healthchecks?.hasAlertCheck == true }

    /// Something can tell a person that a check-in was missed: the backend, a healthchecks
    /// check-in check (a heartbeat check alone only tells that the device is offline), or an MQTT
    /// broker, whose overdue sensor a Home Assistant automation turns into a notification
    /// (docs/home-assistant.md; the device cannot see whether that automation exists, and says so).
    public var canReportMissedCheckIns: Bool { uplink != nil || healthchecks?.hasCheckInCheck == true || mqtt != nil }

    /// The policy `configuredSettings` were checked against, and that settings changed at run time must pass.
    public var settingsPolicy: SettingsPolicy {
        developerShortIntervals ? .developer : .standard
    }

    /// Every key at its default except the two paths, which depend on the environment
    /// (see `defaultStorePath(environment:)` and `defaultControlSocket(environment:)`).
    public init(
        storePath: String,
        controlSocket: String,
        configuredSettings: CheckInSettings? = nil,
        developerShortIntervals: Bool = false,
        button: ButtonConfiguration = ButtonConfiguration(),
        gpio: GPIOConfiguration = GPIOConfiguration(),
        leds: [LEDWiring] = LEDWiring.standard,
        ledLanguage: LEDLanguage = .standard,
        acknowledgement: Duration = .milliseconds(1500),
        simulator: SimulatorConfiguration = SimulatorConfiguration(),
        logLevel: LogLevel = .info,
        uplink: UplinkConfiguration? = nil,
        alert: AlertConfiguration? = nil,
        healthchecks: HealthchecksConfiguration? = nil
    ) {
        // Help alerts are on by default exactly when something can deliver them.
        self.alert = alert ?? AlertConfiguration(enabled: uplink != nil || healthchecks?.hasAlertCheck == true)
        self.configuredSettings = configuredSettings
        self.developerShortIntervals = developerShortIntervals
        self.button = button
        self.gpio = gpio
        self.leds = leds
        self.ledLanguage = ledLanguage
        self.acknowledgement = acknowledgement
        self.storePath = storePath
        self.controlSocket = controlSocket
        self.simulator = simulator
        self.logLevel = logLevel
        self.uplink = uplink
        self.healthchecks = healthchecks
    }
}

/// A GPIO line as the config names it: by the chip's line name (`"GPIO17"`) or by offset (`17`).
/// The two forms are never equated here: which name an offset has is only known to the chip.
public enum GPIOLine: Hashable, Sendable, CustomStringConvertible {
    case name(String)
    case offset(Int)

    /// Offsets the config accepts.
    public static let offsetRange = 0...1023

    public var description: String {
        switch self {
        case .name(let name): name
        case .offset(let offset): "offset \(offset)"
        }
    }
}

/// `[button]`: the one push button.
public struct ButtonConfiguration: Hashable, Sendable {
    /// How long the level must stay stable before a press or release counts (0…1s).
    public var debounce: Duration
    /// How long a hold must last to count as a long press (500ms…30s).
    public var longPress: Duration
    public var line: GPIOLine
    /// True when pressing pulls the line low (a button to ground with a pull-up).
    public var activeLow: Bool
    public var bias: Bias

    public enum Bias: String, Hashable, Sendable, CaseIterable {
        case pullUp = "pull-up"
        case pullDown = "pull-down"
        case disabled
        /// Leave the line's bias as the board configured it.
        case asIs = "as-is"
    }

    public init(
        debounce: Duration = .milliseconds(30),
        longPress: Duration = .seconds(3),
        line: GPIOLine = .name("GPIO17"),
        activeLow: Bool = true,
        bias: Bias = .pullUp
    ) {
        self.debounce = debounce
        self.longPress = longPress
        self.line = line
        self.activeLow = activeLow
        self.bias = bias
    }
}

/// `[gpio]`: which backend drives the lines, and on which chip.
public struct GPIOConfiguration: Hashable, Sendable {
    public enum Backend: String, Hashable, Sendable, CaseIterable {
        case simulated
        case libgpiod
    }

    public var backend: Backend
    /// A chip path (`/dev/gpiochip0`), name (`gpiochip0`) or label (`pinctrl-bcm2711`).
    public var chip: String

    public init(backend: Backend = .simulated, chip: String = "gpiochip0") {
        self.backend = backend
        self.chip = chip
    }
}

/// One LED and the output line that drives it (`[leds.<name>]`).
public struct LEDWiring: Hashable, Sendable {
    public var led: LED
    public var line: GPIOLine
    /// True when the LED lights with the line low (LED to the supply rail).
    public var activeLow: Bool

    public init(led: LED, line: GPIOLine, activeLow: Bool = false) {
        self.led = led
        self.line = line
        self.activeLow = activeLow
    }

    /// Default lines of the standard LEDs.
    public static let standardLines: [String: GPIOLine] = [
        "green": .name("GPIO5"), "amber": .name("GPIO6"), "red": .name("GPIO13"),
    ]

    /// Green, amber and red on GPIO5, GPIO6 and GPIO13, active high.
    public static let standard: [LEDWiring] = LEDLanguage.standard.leds.map {
        LEDWiring(led: $0, line: standardLines[$0.name] ?? .name($0.name))
    }
}

/// `[simulator]`: how the simulated GPIO backend behaves.
public struct SimulatorConfiguration: Hashable, Sendable {
    public enum Terminal: String, Hashable, Sendable, CaseIterable {
        /// Draw the LEDs and read key presses when standard input/output are a terminal.
        case auto
        case on
        case off
    }

    /// Bounce edges injected around each simulated press and release (0…200), to exercise debouncing.
    public var chatterEdges: Int
    /// The time over which those edges are spread (0…1s).
    public var chatterSpan: Duration
    public var terminal: Terminal

    public init(chatterEdges: Int = 20, chatterSpan: Duration = .milliseconds(5), terminal: Terminal = .auto) {
        self.chatterEdges = chatterEdges
        self.chatterSpan = chatterSpan
        self.terminal = terminal
    }
}

/// `[log] level`; the raw values are swift-log's `Logger.Level` raw values.
public enum LogLevel: String, Hashable, Sendable, CaseIterable {
    case trace, debug, info, notice, warning, error, critical
}
