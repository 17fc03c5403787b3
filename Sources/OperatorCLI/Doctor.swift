import ArgumentParser
import ControlProtocol
import DeviceConfig
import LinuxIO

struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check the installation end to end and say what to fix.",
        discussion: """
            Checks, in order: the configuration is valid; the GPIO chip is present and accessible \
            to group gpio and the configured lines exist and are free (or simulated GPIO); the \
            check-in store exists, is writable and passes SQLite's integrity_check; the clock is \
            synchronised; libcurl loads (when [uplink] or [healthchecks] is set); the backend \
            ([uplink]) accepts the device's token (token file readable, not \
            world-readable, GET /v1/settings answered) and each healthchecks check answers (a /log \
            entry, which does not change the check's state); with [mqtt], libmosquitto loads and the broker \
            accepts the device's credentials and a message on its own topic; the daemon answers on its control socket. Run it as root (sudo) to see \
            everything the service sees.

            Exit codes: 0 no problems (warnings may be printed); 1 at least one problem.
            """)
    @Option(name: .shortAndLong, help: "Config file (default: the one lifesignald would use).")
    var config: String?
    @Option(name: .long, help: "Path of lifesignald's control socket (default: from the config).")
    var socket: String?
    @Flag(name: .long, help: "Print the findings as JSON.")
    var json = false

    func run() throws {
        let findings = Self.examine(explicitConfig: config, socket: socket, environment: ProcessEnvironment.current)
        if json {
            print(ControlCoding.encode(findings, pretty: true))
        } else {
            print(findings.map(\.text).joined(separator: "\n"))
            let problems = findings.filter { $0.outcome == .problem }.count
            let warnings = findings.filter { $0.outcome == .warning }.count
            print(problems == 0
                  ? "\nNo problems found\(warnings == 0 ? "." : " (\(warnings) warning\(warnings == 1 ? "" : "s")).")"
                  : "\n\(problems) problem\(problems == 1 ? "" : "s") found.")
        }
        if findings.contains(where: { $0.outcome == .problem }) { throw ExitCode(1) }
    }

    static func examine(explicitConfig: String?, socket: String?, environment: [String: String]) -> [DoctorFinding] {
        let configuration: DeviceConfiguration
        switch ConfigSource.load(explicitPath: explicitConfig, environment: environment) {
        case let .failure(failure):
            let path = failure.path
            return [.problem("config", "\(path) is not valid:\n        " + failure.message.split(separator: "\n").joined(separator: "\n        "),
                             fix: "edit \(path), then run `lifesignalctl config check`; the other checks need a valid configuration")]
        case let .success(loaded):
            configuration = loaded.configuration
            let path = loaded.path
            var findings = [DoctorFinding.ok("config", "\(path ?? "built-in defaults (no config file)") is valid")]
            findings += GPIOChipProbe.check(configuration)
            findings += StoreProbe.check(path: configuration.storePath)
            findings.append(clock())
            findings += UplinkProbe.check(configuration)
            findings += MQTTProbe.check(configuration)
            findings.append(daemon(socket: socket ?? configuration.controlSocket, environment: environment))
            return findings
        }
    }

    static func clock() -> DoctorFinding {
        WallClockSynchronization.system.isSynchronized()
            ? .ok("clock", "synchronised (NTP)")
            : .warning("clock", "not synchronised: check-ins are stored, but marked as made with an unsynchronised clock",
                       fix: "enable time synchronisation (timedatectl set-ntp true) and give the device network; `timedatectl` shows the state")
    }

    static func daemon(socket: String, environment: [String: String]) -> DoctorFinding {
        let connection = ControlConnection(explicit: socket, environment: environment)
        do {
            let response = try connection.send(ControlRequest(.status), timeout: .seconds(5))
            guard let status = response.status else {
                return .problem("daemon", "\(socket) answered without a status", fix: "restart it: sudo systemctl restart lifesignald")
            }
            let detail = "answers on \(socket): \(status.phase.replacingUnderscores()), gpio \(status.gpioBackend), upload queue \(status.queueDepth)"
            if let error = status.error {
                return .problem("daemon", "\(detail); it reports: \(error)",
                                fix: "see `journalctl -u lifesignald`; after fixing, `lifesignalctl dismiss-error`")
            }
            return .ok("daemon", detail)
        } catch {
            let permission = error.message.contains("ermission")
            return .problem("daemon", error.message,
                            fix: permission
                                ? "run as root, or add yourself to group lifesignal: sudo adduser $USER lifesignal (then log in again)"
                                : "start it: sudo systemctl start lifesignald; if it does not stay up: journalctl -u lifesignald -b")
        }
    }
}
