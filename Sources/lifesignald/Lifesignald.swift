// lifesignald: the LifeSignal check-in device daemon. Thin on purpose: everything is in DeviceRuntime.
import ArgumentParser
import DeviceConfig
import DeviceRuntime
import Glibc
import LinuxIO
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

@main
struct Lifesignald: AsyncParsableCommand {
    /// Every Swift job and timer runs on the main thread's loop, which sleeps until its next
    /// deadline: the runtime's Dispatch-based executors would wake the idle daemon every second.
    typealias DefaultExecutorFactory = SingleThreadExecutorFactory

    static let configuration = CommandConfiguration(
        commandName: "lifesignald",
        abstract: "The LifeSignal check-in device daemon: one press says \"I'm OK\".",
        discussion: """
            Reads the button and drives the LEDs, keeps the check-in countdown, and stores every \
            check-in durably before acknowledging it. A check-in store that cannot be opened does not \
            stop it: it shows the fault and retries with back-off. Without a config file it runs on simulated GPIO \
            with a local store. Control it with lifesignalctl.

            Exit codes: 0 stopped cleanly; 78 configuration error (fix the file; do not restart); \
            69 GPIO line unavailable (wrong name, busy, no permission; a missing chip is waited for) \
            or libcurl missing for [uplink]/[healthchecks] (package libcurl4) or libmosquitto for [mqtt] \
            (package libmosquitto1); 71 OS resource (control socket) failed; \
            70 internal error.
            """
    )

    @Option(name: .shortAndLong, help: "Config file (default: $LIFESIGNAL_CONFIG, else /etc/lifesignal/lifesignald.toml if present, else built-in defaults).")
    var config: String?

    @Flag(name: .long, help: "Validate the configuration, print the result and exit (78 if invalid).")
    var checkConfig = false

    func run() async throws {
        // Room for many control-socket clients (idle ones must not starve the others); the control
        // server sizes its connection limit from this.
        DescriptorLimit.raiseToHardLimit()
        let environment = ProcessEnvironment.current
        let found = ConfigurationFile.load(explicitPath: config, environment: environment) { path in
            readRegularFile(path).mapError { $0.isMissing ? .missing : .unreadable($0.description, permissionDenied: $0.isPermissionDenied) }
        }
        switch found {
        case let .failure(failure):
            printError("lifesignald: \(failure.message)", journal: environment["JOURNAL_STREAM"] != nil)
            throw ExitCode(78)  // EX_CONFIG: restarting cannot fix it
        case let .success(loaded):
            if checkConfig {
                print("\(loaded.path ?? "built-in defaults"): configuration is valid")
                return
            }
            let code = await Daemon.run(loaded, environment: environment, sleep: SingleThreadExecutorFactory.sleep(for:))
            if code != 0 { throw ExitCode(code) }
        }
    }
}

/// Under systemd (stderr is the journal) every line is marked `<3>`, as the daemon's log lines
/// carry their priorities: journald files an unmarked line at info, and the reason the service did
/// not start must show under `journalctl -p err`.
func printError(_ message: String, journal: Bool) {
    let text = journal
        ? message.split(separator: "\n", omittingEmptySubsequences: false).map { "<3>\($0)" }.joined(separator: "\n")
        : message
    var line = text + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
