import DeviceConfig
import GPIOClient
import GPIOLibgpiod
import Logging

/// The `[gpio]`, `[button]` and `[leds.*]` sections as the libgpiod backend takes them.
extension LibgpiodConfiguration {
    init(_ configuration: DeviceConfiguration) {
        let button = configuration.button
        // In the LED language's order: `GPIOClient.setLED` indices are positions in that list.
        let wirings = configuration.ledLanguage.leds.map { led in
            configuration.leds.first { $0.led == led } ?? LEDWiring(led: led, line: .name(led.name))
        }
        self.init(
            chip: ChipSelector(parsing: configuration.gpio.chip),
            button: Button(
                line: LineSelector(button.line),
                activeLow: button.activeLow,
                bias: LineBias(rawValue: button.bias.rawValue) ?? .asIs,
                debounce: button.debounce),
            leds: wirings.map { LED(line: LineSelector($0.line), activeLow: $0.activeLow) })
    }
}

extension LineSelector {
    init(_ line: GPIOLine) {
        switch line {
        case .name(let name): self = .name(name)
        case .offset(let offset): self = .offset(UInt32(clamping: offset))  // validated 0...1023
        }
    }
}

extension Device {
    /// Opens the configured chip and lines through libgpiod; every failure says what to fix.
    static func openLibgpiod(_ configuration: DeviceConfiguration, logger: Logger) throws(StartupError) -> GPIOClient {
        do {
            return try GPIOClient.libgpiod(LibgpiodConfiguration(configuration), log: logger)
        } catch {
            throw .gpio(error.description)
        }
    }
}
