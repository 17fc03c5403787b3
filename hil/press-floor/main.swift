// lifesignal-press-floor: the daemon's architecture doing a press and nothing else, run in the HIL
// guest beside lifesignald and the C and Python references (scenario "latency", docs/hil.md). What
// it takes is what any device built this way pays, whatever its features:
//   - the button through the libgpiod backend (its own thread, handing edges over in a stream),
//   - one reducer (PressFloorFeature) on the project's Store, on the daemon's single-thread executor,
//   - the check-in written through the daemon's store (CheckInStoreOwner: its store thread, schema,
//     WAL, synchronous=FULL) by an effect, which sends the answer back as an action,
//   - the acknowledgement LED set by an observer of the state, as the daemon's LED driver does, and
//     switched off by an effect's 200 ms sleep.
// Without: the other features, the log, the LED language, the control socket, the clock's watchers.
//
//   lifesignal-press-floor --chip C --button LINE --led LINE --store FILE
//
// Prints "press-floor: ready" once it holds its lines and has opened the store; on a setup failure
// prints "press-floor: error: ..." and exits 1.
import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import ComposableCore
import DeviceClock
import DeviceClockLive
import GPIOClient
import GPIOLibgpiod
import Glibc
import Logging
import PressFloorFeature
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

func argument(_ name: String) -> String {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else {
        say("usage: lifesignal-press-floor --chip C --button LINE --led LINE --store FILE")
        exit(64)
    }
    return arguments[index + 1]
}

/// One line straight to fd 1, unbuffered: the scenario reads it while the program runs.
func say(_ line: String) {
    var text = "press-floor: \(line)\n"
    text.withUTF8 { _ = write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

@main
struct PressFloorMain {
    typealias DefaultExecutorFactory = SingleThreadExecutorFactory

    @MainActor
    static func main() async {
        let config = LibgpiodConfiguration(
            chip: ChipSelector(parsing: argument("--chip")),
            button: .init(line: LineSelector(parsing: argument("--button")), activeLow: true, bias: .pullUp, debounce: .zero),
            leds: [.init(line: LineSelector(parsing: argument("--led")))])
        var logger = Logger(label: "press-floor")
        logger.logLevel = .warning
        let owner: CheckInStoreOwner
        let gpio: GPIOLines
        do throws(StoreFailure) {
            owner = try CheckInStoreOwner(path: argument("--store"))
            _ = try await owner.open()
        } catch {
            say("error: \(error.message)")
            exit(1)
        }
        do throws(GPIOError) {
            gpio = try GPIOLines.libgpiod(config, log: logger)
        } catch {
            say("error: \(error)")
            exit(1)
        }
        let store = PressFloorFeature.running(
            record: { new throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.record(new) } },
            clock: .live(sleep: SingleThreadExecutorFactory.sleep(for:)),
            setLED: { on in
                do {
                    try gpio.setLED(0, on)
                } catch {
                    say("error: \(error)")
                    exit(1)
                }
            })
        store.observe { state, _ in
            if let failure = state.failure {
                say("error: \(failure.message)")
                exit(1)
            }
        }
        say("ready")
        for await event in gpio.buttonEvents {
            store.send(.button(event))
        }
        say("error: the button's events ended: \(gpio.failure().map { "\($0)" } ?? "shut down")")
        exit(1)
    }
}
