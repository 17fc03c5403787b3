import DeviceLive
import ComposableCore
import DeviceConfig
import DeviceLogging
import GPIOSimulated
import Logging
import ServiceTree
import SimulatorTerminal

/// The simulated board drawn in the terminal the daemon runs in: keys press the button, the LEDs
/// and a caption are drawn on one status line, log lines go above it. `q` ends the daemon as
/// SIGTERM does (the service returns, and the rest of the tree shuts down in order).
struct TerminalService: Service, CustomStringConvertible {
    let simulator: SimulatedGPIO
    let configuration: DeviceConfiguration
    let device: Device
    let useColor: Bool
    let logSink: LogSink
    var description: String { "terminal" }

    func run() async throws {
        let (quit, quitRequested) = AsyncStream<Void>.makeStream()
        let terminal: SimulatorTerminal
        do {
            terminal = try SimulatorTerminal(
                gpio: simulator,
                ledColors: configuration.ledLanguage.leds.map { LEDColor(configName: $0.colour) },
                longPressHold: configuration.button.longPress + .milliseconds(500),
                useColor: useColor,
                onQuit: { quitRequested.finish() })
            try terminal.start()
        } catch {
            throw StartupError.system("terminal view: \(error)")
        }
        defer { terminal.restore() }
        logSink.redirect { line in terminal.printLine(line) }
        defer { logSink.redirect(nil) }
        terminal.printLine("Simulated button: space/enter = press, l = long press, q = quit")
        await MainActor.run {
            terminal.setCaption(device.summary)
            device.store.observe { [weak device] state, _ in
                if let device, !state.acknowledgementPending { terminal.setCaption(device.summary) }
            }
        }
        await cancelWhenGracefulShutdown {
            for await _ in quit {}
        }
    }
}
