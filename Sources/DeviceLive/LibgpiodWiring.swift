import DeviceConfig
import GPIOClient
import GPIOLibgpiod
import LinuxIO
import Logging

/// The `[gpio]`, `[button]` and `[leds.*]` sections as the libgpiod backend takes them.
extension LibgpiodConfiguration {
    init(_ configuration: DeviceConfiguration) {
        let button = configuration.button
        // In the LED language's order: `GPIOLines.setLED` indices are positions in that list.
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
            leds: wirings.map { LED(line: LineSelector($0.line), activeLow: $0.activeLow) },
            buzzer: configuration.buzzer.map { LED(line: LineSelector($0.line), activeLow: $0.activeLow) },
            inputs: [
                configuration.power.mainsLine.map {
                    Input(role: .mains, line: LineSelector($0), activeLow: configuration.power.mainsActiveLow)
                },
                configuration.power.lowBatteryLine.map {
                    Input(role: .lowBattery, line: LineSelector($0), activeLow: configuration.power.lowBatteryActiveLow)
                },
            ].compactMap { $0 })
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

extension GPIOConnector {
    /// The configured chip and lines through libgpiod; chips are watched with inotify on /dev.
    static func libgpiod(_ configuration: DeviceConfiguration, logger: Logger) -> GPIOConnector {
        let config = LibgpiodConfiguration(configuration)
        return GPIOConnector(
            chipDescription: "\(config.chip)",
            connect: { () throws(GPIOError) in try GPIOLines.libgpiod(config, log: logger) },
            chipChanges: {
                do {
                    let watcher = try DirectoryWatcher(directory: "/dev", namePrefix: "gpiochip")
                    return ChipWatch(changes: watcher.changes, stop: { watcher.stop() })
                } catch {
                    logger.warning("cannot watch /dev for GPIO chips, retrying on a timer instead: \(error)")
                    return nil
                }
            },
            onlyAChipChangeHelps: { $0.isChipMissing })
    }

    /// The first request of the configured lines, at start-up. A missing chip is waited for (the
    /// daemon stays up, nil); any other failure — a wrong line name, a busy line, no permission —
    /// ends start-up with exit 69 and a message that says what to fix.
    static func firstRequest(_ connector: GPIOConnector) throws(StartupError) -> GPIOLines? {
        do {
            return try connector.connect()
        } catch where error.isChipMissing {
            return nil
        } catch {
            throw .gpio(error.description)
        }
    }
}
