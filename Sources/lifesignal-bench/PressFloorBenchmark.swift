import CheckInModels
import CheckInStoreClient
import CheckInStoreLive
import ComposableCore
import DeviceClock
import DeviceClockLive
import GPIOClient
import GPIOSimulated
import Glibc
import LinuxIO
import PressFloorFeature
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

/// The daemon's latency floor on this machine: its architecture doing a press and nothing else
/// (PressFloorFeature on the same executor, the device's store with its store thread, an observer
/// setting the LED), in this process after the daemon's own presses, with a simulated switch that
/// bounces and debounces like the daemon's and the same number of presses, timed the same way.
@MainActor
enum PressFloorBenchmark {
    static func run(in directory: String, count: Int, like device: SimulatedGPIO) async throws -> Sample {
        guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { throw SystemError.current("mkdir", directory) }
        let owner: CheckInStoreOwner
        do throws(StoreFailure) {
            owner = try CheckInStoreOwner(path: directory + "/floor.sqlite")
            _ = try await owner.open()
        } catch {
            throw BenchError("the floor's store: \(error.message)")
        }
        let simulator = SimulatedGPIO(ledCount: 1, debounce: device.debounce, chatter: device.chatter,
                                      monotonicNow: monotonicNow, sleep: SingleThreadExecutorFactory.sleep(for:))
        let lines = simulator.client
        let store = PressFloorFeature.running(
            record: { new throws(StoreFailure) in try await owner.perform { database throws(StoreFailure) in try database.record(new) } },
            clock: .live(sleep: SingleThreadExecutorFactory.sleep(for:)),
            setLED: { on in try? lines.setLED(0, on) })  // a refusal shows as a press without an acknowledgement
        let feeding = Task { for await event in lines.buttonEvents { store.send(.button(event)) } }
        let (sample, timeouts, _) = await PressBenchmark.timePresses(simulator, count: count, led: 0)
        lines.shutdown()
        await feeding.value
        await store.waitForEffects()
        await owner.close()
        if let failure = store.state.failure { throw BenchError("the floor's store refused a check-in: \(failure.message)") }
        guard timeouts == 0, store.state.stored == count else {
            throw BenchError("the floor answered \(count - timeouts) of \(count) presses and stored \(store.state.stored)")
        }
        return sample
    }
}
