// lifesignal-gpio-probe: the libgpiod backend on its own, for the HIL guest (before and beside
// the daemon). Mirrors the button onto the first LED and prints every debounced event:
//
//   lifesignal-gpio-probe --chip lifesignal-sim --button GPIO17 --leds GPIO5,GPIO6,GPIO13 [--debounce-ms 30]
//
// Prints "probe: ready", then "probe: pressed N" / "probe: released N"; on a setup failure prints
// "probe: error: <the GPIOError>" and exits 1, which is what the HIL scenarios check.
import GPIOClient
import GPIOLibgpiod
import Logging

#if canImport(Glibc)
import Glibc
#endif

func argument(_ name: String, default value: String? = nil) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: name), index + 1 < arguments.count { return arguments[index + 1] }
    guard let value else {
        print("usage: lifesignal-gpio-probe --chip C --button LINE --leds L1,L2 [--debounce-ms N] [--active-high]")
        exit(2)
    }
    return value
}

/// One line straight to fd 1, unbuffered: the scenarios read it while the probe runs.
func say(_ line: String) {
    var text = "probe: \(line)\n"
    text.withUTF8 { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

let config = LibgpiodConfiguration(
    chip: ChipSelector(parsing: argument("--chip")),
    button: .init(
        line: LineSelector(parsing: argument("--button")),
        activeLow: !CommandLine.arguments.contains("--active-high"),
        bias: .pullUp,
        debounce: .milliseconds(Int(argument("--debounce-ms", default: "30")) ?? 30)),
    leds: argument("--leds").split(separator: ",").map { .init(line: LineSelector(parsing: String($0))) })

var logger = Logger(label: "probe")
logger.logLevel = .info

let gpio: GPIOLines
do {
    gpio = try GPIOLines.libgpiod(config, log: logger)
} catch {
    say("error: \(error)")
    exit(1)
}
say("ready (libgpiod \(LibgpiodLibrary.version), API v\(LibgpiodLibrary.apiMajor))")

var presses = 0
for await event in gpio.buttonEvents {
    if event.kind == .pressed { presses += 1 }
    do {
        try gpio.setLED(0, event.kind == .pressed)
    } catch {
        say("error: \(error)")
        exit(1)
    }
    say("\(event.kind.rawValue) \(presses) at \(event.at)")
}
gpio.shutdown()
