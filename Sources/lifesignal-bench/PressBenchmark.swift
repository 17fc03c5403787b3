import DeviceClockLive
import DeviceConfig
import DeviceLogging
import DeviceRuntime
import GPIOSimulated
import Glibc
import LinuxIO
import Logging
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

/// Press → durable store → acknowledgement, measured inside one process that builds the device
/// exactly as lifesignald does (the same `Device` composition root, store, LED driver and
/// executor), because only there can the simulated switch's edge and the LED change be stamped on
/// one clock. The simulated switch bounces as configured; the latency is taken from the moment the
/// debouncer accepts the release (last bounce + debounce period, when the check-in starts) to the
/// simulated LED change of the acknowledgement, both on CLOCK_BOOTTIME.
@MainActor
struct PressBenchmark {
    let directory: String
    let count: Int
    /// Appended to the bench's configuration (`--extra-config`).
    let extraConfig: String
    /// Also time the same presses through the daemon's floor (`--phases presses,floor`). Off for
    /// the scripts that trace or count the daemon's presses alone.
    let floor: Bool
    /// The yardstick: a minimal Python program doing the same for a press (scripts/reference).
    let reference: Reference?

    struct Reference {
        var python: String
        var script: String
    }

    func run() async throws {
        let config = try DaemonConfig.write(in: directory, extra: extraConfig)
        let configuration: DeviceConfiguration
        let found = ConfigurationFile.load(explicitPath: config.path, environment: [:]) { path in
            readRegularFile(path).mapError { .unreadable($0.description, permissionDenied: $0.isPermissionDenied) }
        }
        switch found {
        case let .success(loaded): configuration = loaded.configuration
        case let .failure(failure): throw BenchError("bench config: \(failure.message)")
        }
        guard let red = configuration.ledLanguage.leds.firstIndex(where: { $0.name == "red" }) else {
            throw BenchError("the bench config has no red LED")
        }

        // The device logs as the daemon does (every check-in is a log line); into a file here.
        let log = directory + "/device.log"
        let logDescriptor = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard logDescriptor >= 0 else { throw SystemError.current("open", log) }
        let savedStandardError = dup(STDERR_FILENO)
        dup2(logDescriptor, STDERR_FILENO)
        close(logDescriptor)
        defer {
            dup2(savedStandardError, STDERR_FILENO)
            close(savedStandardError)
        }

        let sink = LogSink()
        let logger = Daemon.makeLogger(configuration, environment: [:], sink: sink)
        let daemon: Daemon.Instance
        do {
            daemon = try await Daemon.make(configuration, environment: [:], sleep: SingleThreadExecutorFactory.sleep(for:),
                                           logger: logger, sink: sink)
        } catch {
            throw BenchError("the device did not start: \(error.message)")
        }
        let running = Task { try await daemon.tree.run() }
        guard let simulator = daemon.resources.simulator else { throw BenchError("the device is not on simulated GPIO") }
        // The first press must find the device started (the store probed, the lines held).
        try await Self.waitUntilStarted(daemon.device)

        let (fromAcceptedRelease, timeouts, pressPeriod) = await Self.timePresses(simulator, count: count, led: red)
        // Measured while the store is still open: a clean stop checkpoints and removes the WAL.
        let files = Self.storeFileSizes(configuration.storePath)
        daemon.tree.triggerGracefulShutdown()
        try await running.value

        print("## Press → durable store → acknowledgement LED (simulated GPIO, in-process device, \(count) presses)")
        print("from the debouncer accepting the release: \(fromAcceptedRelease.summary)")
        print("(add the debounce period, \(milliseconds(simulator.debounce)), for the time from the last contact bounce)")
        if timeouts > 0 { print("presses without an acknowledgement within 5 s: \(timeouts)") }
        if timeouts > 0 { throw BenchError("\(timeouts) presses were not acknowledged; see \(log)") }
        print("store files after the presses, still open: \(files)")
        // What the latency above contains that is the machine's, not the daemon's: the wake of the
        // debounce timer (the measurement starts at its deadline) and the fsync of a disk that idled
        // since the last press (the back-to-back disk reference printed first is the disk at its best).
        print("of which the machine's: the debounce timer's wake after its deadline (\(milliseconds(simulator.debounce)) sleeps on the device's executor): \(try await Self.timerLateness(sleeping: simulator.debounce).summary)")
        let spacing = pressPeriod - .milliseconds(1)
        let disk = try DiskBaseline.measureInPlace(in: directory, count: 200, spacing: spacing)
        print("and the disk's: 4 × 4 KiB in place + fdatasync, one every \(milliseconds(spacing)) like the presses: \(disk.summary)")
        print("target: p99 ≤ 1.5 × the spaced disk's p99: \(format(ratio(fromAcceptedRelease.percentile(99), disk.percentile(99)))) ×")
        if floor {
            let floor = try await PressFloorBenchmark.run(in: directory + "/floor", count: count, like: simulator)
            print("floor (the daemon's architecture doing a press and nothing else: PressFloorFeature on the same executor, the "
                  + "device's store, a switch bouncing alike; same presses, same disk): \(floor.summary)")
            print("floor: p99 \(format(ratio(floor.percentile(99), disk.percentile(99)))) × the spaced disk's p99; daemon/floor p50 "
                  + "\(format(ratio(fromAcceptedRelease.percentile(50), floor.percentile(50)))) ×, p99 "
                  + "\(format(ratio(fromAcceptedRelease.percentile(99), floor.percentile(99)))) ×")
        }
        if let reference {
            // Twice: storing on the release edge itself, and with the daemon's stable-level debounce
            // (timed from release + debounce, as the daemon is above).
            for debounce in [Duration.zero, simulator.debounce] {
                let figures = try runReference(reference, spacing: spacing, debounce: debounce)
                let how = debounce == .zero ? "on the release edge" : "after a \(milliseconds(debounce)) stable-level debounce like the daemon's"
                print("reference (Python, gpiozero mock pins, sqlite3 WAL + FULL, LED after the commit, \(how); same presses, same disk): \(figures)")
                if let p50 = figures.p50, let p99 = figures.p99 {
                    print("target: below the reference at p50 and p99: daemon/reference p50 "
                          + "\(format(ratio(fromAcceptedRelease.percentile(50), p50))) ×, p99 \(format(ratio(fromAcceptedRelease.percentile(99), p99))) ×")
                }
            }
        } else {
            print("reference program not run (scripts/bench runs it: --reference-python, --reference-script)")
        }
        print("")
    }

    /// Presses `simulator`'s switch `count` times and times each from the debouncer accepting the
    /// release to LED `led` lighting; each acknowledgement must end before the next press (or it
    /// would show no change). A press unanswered within 5 s counts as a timeout.
    static func timePresses(_ simulator: SimulatedGPIO, count: Int, led: Int) async -> (Sample, timeouts: Int, period: Duration) {
        let (changes, continuation) = AsyncStream<LEDChange>.makeStream()
        let observation = simulator.observeLEDs { change, _ in continuation.yield(change) }
        defer { observation.cancel() }
        var iterator = changes.makeAsyncIterator()

        // Long enough to count as a press (it must outlast bounce + debounce), far below a long press.
        let hold = simulator.debounce + simulator.chatter.span + .milliseconds(15)
        let lastReleaseBounce = simulator.chatter.burst(to: false).last?.offset ?? .zero
        var fromAcceptedRelease = Sample()
        var timeouts = 0
        let pressesStarted = monotonicNow()
        for _ in 0..<count {
            let start = monotonicNow()
            // As SimulatedGPIO.press computes it from its own (later) start: this estimate is at
            // most microseconds early, which can only make the measured latency longer.
            let releaseStart = start + simulator.chatter.span + max(.zero, hold - simulator.chatter.span)
            let accepted = releaseStart + lastReleaseBounce + simulator.debounce
            let watchdog = Task {
                try await Task.sleep(for: .seconds(5))
                continuation.yield(LEDChange(sequence: 0, index: -1, on: false, at: .zero))
            }
            defer { watchdog.cancel() }
            await simulator.press(hold: hold)
            guard let acknowledged = await next(&iterator, index: led, on: true) else {
                timeouts += 1
                continue
            }
            fromAcceptedRelease.add(acknowledged.at - accepted)
            guard await next(&iterator, index: led, on: false) != nil else {
                timeouts += 1
                continue
            }
        }
        return (fromAcceptedRelease, timeouts, (monotonicNow() - pressesStarted) / max(count, 1))
    }

    /// Runs the reference program with the same press count and spacing, in the same work folder.
    private func runReference(_ reference: Reference, spacing: Duration, debounce: Duration) throws -> ReferenceFigures {
        let output = directory + "/reference.out"
        let child = try Child(executable: reference.python,
                              arguments: [reference.script, directory + "/reference", String(count), String(spacing.wholeMilliseconds),
                                          String(debounce.wholeMilliseconds)],
                              environment: [], log: output)
        let code = child.wait()
        let text = (try? readTextFile(output).get()) ?? ""
        guard code == 0, let line = text.split(separator: "\n").last(where: { $0.hasPrefix("reference: ") }) else {
            throw BenchError("the reference program failed (exit \(code)): \(text)")
        }
        return ReferenceFigures(line: String(line))
    }

    /// Waits (at most 10 s) until the device shows its phase: the store probed and loaded.
    private static func waitUntilStarted(_ device: Device) async throws {
        let deadline = monotonicNow() + .seconds(10)
        while device.store.state.checkIn.phase == .starting || !device.store.state.store.provenWritable {
            guard monotonicNow() < deadline else { throw BenchError("the device did not start within 10 s") }
            try await SingleThreadExecutorFactory.sleep(for: .milliseconds(5))
        }
    }

    /// "main N KiB, -wal N KiB, -shm N KiB": how much of the history the main file holds and how
    /// far the WAL has grown (docs/faults.md, "Storage").
    private static func storeFileSizes(_ path: String) -> String {
        ["", "-wal", "-shm"].map { suffix in
            var info = stat()
            let size = stat(path + suffix, &info) == 0 ? "\(Int(info.st_size) / 1024) KiB" : "none"
            return "\(suffix.isEmpty ? "main" : suffix) \(size)"
        }.joined(separator: ", ")
    }

    /// How late the device's executor wakes from a sleep of `duration` (100 sleeps).
    private static func timerLateness(sleeping duration: Duration) async throws -> Sample {
        var sample = Sample()
        for _ in 0..<100 {
            let start = monotonicNow()
            try await SingleThreadExecutorFactory.sleep(for: duration)
            sample.add(monotonicNow() - start - duration)
        }
        return sample
    }

    /// The next change of LED `index` to `on`, skipping others; nil on the watchdog's marker.
    private static func next(_ iterator: inout AsyncStream<LEDChange>.Iterator, index: Int, on: Bool) async -> LEDChange? {
        while let change = await iterator.next(isolation: MainActor.shared) {
            if change.index == -1 { return nil }
            if change.index == index && change.on == on { return change }
        }
        return nil
    }
}

/// "reference: n=N p50=Xus p99=Yus max=Zus", read back.
struct ReferenceFigures: CustomStringConvertible {
    var p50: Duration?
    var p99: Duration?
    var maximum: Duration?
    var count: Int?

    init(line: String) {
        for field in line.split(separator: " ") {
            let parts = field.split(separator: "=", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let microseconds = Int64(parts[1].dropLast(2)).map { Duration.microseconds($0) }
            switch parts[0] {
            case "n": count = Int(parts[1])
            case "p50": p50 = microseconds
            case "p99": p99 = microseconds
            case "max": maximum = microseconds
            default: break
            }
        }
    }

    var description: String {
        guard let p50, let p99, let maximum, let count else { return "unreadable" }
        return "p50 \(milliseconds(p50))  p99 \(milliseconds(p99))  max \(milliseconds(maximum))  (n = \(count))"
    }
}

/// `a / b` as a number, for "how many times" lines.
func ratio(_ a: Duration, _ b: Duration) -> Double {
    let denominator = Double(b.wholeMicroseconds)
    return denominator == 0 ? .infinity : Double(a.wholeMicroseconds) / denominator
}
