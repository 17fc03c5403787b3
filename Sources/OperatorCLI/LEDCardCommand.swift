import ArgumentParser
import LEDLanguage
import LinuxIO

/// `lifesignalctl led-card`: the one-page card of what the lights mean, to print and put beside
/// the device, drawn from the patterns the device uses (its config's `[patterns.*]`, or the
/// standard ones).
struct LEDCardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "led-card",
        abstract: "Print the LED card (SVG) to put beside the device: what each light pattern means.",
        discussion: """
            Draws every indicator as what each light does over three seconds, with its meaning, from \
            the patterns of the configuration (--config, as lifesignald finds it) or the standard ones \
            (--standard). Readable without colours: each light has its place and letter. Save it and \
            print it on one A4 page, e.g. lifesignalctl led-card > led-card.svg.
            """)
    @Option(name: .shortAndLong, help: "Config file whose patterns to draw (default: the one lifesignald would use).")
    var config: String?
    @Flag(name: .long, help: "Draw the standard patterns, whatever the configuration says (docs/led-card.svg).")
    var standard = false
    @Flag(name: .long, help: "With --standard: a watcher's card (docs/led-card-watcher.svg).")
    var watcher = false

    static let watcherTitle = "What the lights on the LifeSignal watcher mean"

    func run() throws {
        if standard {
            return print(watcher ? LEDCard.svg(.standard, title: Self.watcherTitle, order: LEDCard.watcherOrder) : LEDCard.svg(.standard),
                         terminator: "")
        }
        switch ConfigSource.load(explicitPath: config, environment: ProcessEnvironment.current) {
        case let .success(loaded):
            let configuration = loaded.configuration
            // A watcher's card shows its glance; one that is both gets every row.
            switch configuration.device.role {
            case .person: print(LEDCard.svg(configuration.ledLanguage), terminator: "")
            case .watcher: print(LEDCard.svg(configuration.ledLanguage, title: Self.watcherTitle, order: LEDCard.watcherOrder),
                                 terminator: "")
            case .both: print(LEDCard.svg(configuration.ledLanguage, order: LEDCard.order + LEDCard.watcherOrder.filter {
                !LEDCard.order.contains($0)
            }), terminator: "")
            }
        case let .failure(failure):
            printToStandardError(failure.message)
            throw ExitCode(78)
        }
    }
}
