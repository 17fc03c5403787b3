// lifesignald: the LifeSignal check-in device daemon. Thin on purpose: everything is in DeviceRuntime.
import DeviceClock
import DeviceClockLive
import DeviceConfig
import DeviceRuntime
import Glibc
import LinuxIO
@_spi(ExperimentalCustomExecutors) import SingleThreadExecutor

@main
struct Lifesignald {
    /// Every Swift job and timer runs on the main thread's loop, which sleeps until its next
    /// deadline: the runtime's Dispatch-based executors would wake the idle daemon every second.
    typealias DefaultExecutorFactory = SingleThreadExecutorFactory

    static func main() async {
        let arguments: DaemonArguments
        switch DaemonArguments.parse(Array(CommandLine.arguments.dropFirst())) {
        case let .success(parsed): arguments = parsed
        case let .failure(error):
            printError("lifesignald: \(error.message) (see lifesignald --help)", journal: false)
            exit(64)  // EX_USAGE
        }
        if arguments.action == .help {
            print(DaemonArguments.usage)
            exit(0)
        }
        // Room for many control-socket clients (idle ones must not starve the others); the control
        // server sizes its connection limit from this.
        DescriptorLimit.raiseToHardLimit()
        let environment = ProcessEnvironment.current
        // Before any thread: TZ goes into the environment once (see TimeZoneClient.live).
        TimeZoneClient.prepareProcess()
        let found = ConfigurationFile.load(explicitPath: arguments.config, environment: environment, read: { path in
            readRegularFile(path).mapError { $0.isMissing ? .missing : .unreadable($0.description, permissionDenied: $0.isPermissionDenied) }
        }, zoneExists: TimeZoneClient.zoneExists)
        switch found {
        case let .failure(failure):
            printError("lifesignald: \(failure.message)", journal: environment["JOURNAL_STREAM"] != nil)
            exit(78)  // EX_CONFIG: restarting cannot fix it
        case let .success(loaded):
            if arguments.action == .checkConfig {
                print("\(loaded.path ?? "built-in defaults"): configuration is valid")
                exit(0)
            }
            exit(await Daemon.run(loaded, environment: environment, sleep: SingleThreadExecutorFactory.sleep(for:)))
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
