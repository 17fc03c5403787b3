import ArgumentParser
import CheckInModels
import ControlProtocol
import DeviceConfig
import Glibc
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
            world-readable, GET /v1/settings answered); the device's own healthchecks checks exist \
            with the timeout and grace its settings ask for (with [healthchecks] api_key_file); \
            with [mqtt], libmosquitto loads and the broker accepts the device's credentials and a \
            message on its own topic; someone is told of a missed check-in and of a long press; the \
            daemon answers on its control socket, on real GPIO if it is the installed service. Run it \
            as root (sudo) to see everything the service sees.

            --send-test adds a test entry to each healthchecks check's log (check-in, heartbeat, \
            alert): it shows the whole way to the check works, and changes no check's state, so \
            nobody is alarmed.

            Exit codes: 0 no problems (warnings may be printed); 1 at least one problem.
            """)
    @Option(name: .shortAndLong, help: "Config file (default: the one lifesignald would use).")
    var config: String?
    @Option(name: .long, help: "Path of lifesignald's control socket (default: from the config).")
    var socket: String?
    @Flag(name: .long, help: "Print the findings as JSON.")
    var json = false
    @Flag(name: .long, help: "Add a test entry to each healthchecks check's log (changes no check's state).")
    var sendTest = false

    func run() throws {
        let findings = Self.examine(explicitConfig: config, socket: socket, environment: ProcessEnvironment.current,
                                    sendTest: sendTest)
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

    /// Where the Debian package installs the service's unit (`scripts/build-deb`).
    static let packageUnitFiles = ["/lib/systemd/system/lifesignald.service", "/usr/lib/systemd/system/lifesignald.service"]

    static func examine(explicitConfig: String?, socket: String?, environment: [String: String], sendTest: Bool = false,
                        unitFiles: [String] = packageUnitFiles) -> [DoctorFinding] {
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
            let (daemonFinding, status) = daemon(socket: socket ?? configuration.controlSocket, environment: environment)
            let settings = status.flatMap { status in
                CheckInSettings(interval: .seconds(status.settings.intervalSeconds), reminder: .seconds(status.settings.reminderSeconds))
            }
            findings += UplinkProbe.check(configuration, sendTest: sendTest, settings: settings)
            findings += MQTTProbe.check(configuration)
            findings += reach(configuration, running: status == nil ? nil
                                : responders(socket: socket ?? configuration.controlSocket, environment: environment))
            findings += installedService(configuration, status: status, unitFiles: unitFiles)
            findings.append(daemonFinding)
            return findings
        }
    }

    static func clock() -> DoctorFinding {
        WallClockSynchronization.system.isSynchronized()
            ? .ok("clock", "synchronised (NTP)")
            : .warning("clock", "not synchronised: check-ins are stored, but marked as made with an unsynchronised clock",
                       fix: "enable time synchronisation (timedatectl set-ntp true) and give the device network; `timedatectl` shows the state")
    }

    /// The running daemon's responders (the answer `lifesignalctl responders` gives); nil when it
    /// has none to give (a watcher) or cannot be asked.
    static func responders(socket: String, environment: [String: String]) -> RespondersReport? {
        let connection = ControlConnection(explicit: socket, environment: environment)
        return (try? connection.send(ControlRequest(.responders, name: nil), timeout: .seconds(15)))?.responders
    }

    /// Whether anyone is told of a missed check-in or a long press: the running daemon's answer
    /// (who it lists), else what the configuration allows (`DeviceConfiguration.reachFindings`).
    static func reach(_ configuration: DeviceConfiguration, running: RespondersReport?) -> [DoctorFinding] {
        guard let running else { return reach(configuration) }
        let fix = "pair a watcher (`lifesignalctl pair`), add people in the LifeSignal app, or add an integration to the "
            + "healthchecks project; `lifesignalctl responders` shows who is told"
        if running.nobodyForMissedCheckIns {
            return [.problem("responders", running.reach, fix: fix)]
        }
        if running.responders.isEmpty || running.nobodyForHelpAlerts || running.responders.contains(where: { $0.notReachableNow != nil }) {
            return [.warning("responders", running.reach, fix: fix)]
        }
        if !running.sourceProblems.isEmpty || running.stale {
            let why = running.sourceProblems.isEmpty ? "not every source answered in time"
                : "cannot read " + running.sourceProblems.joined(separator: "; ")
            return [.warning("responders", "\(running.reach) (\(why))",
                             fix: "check the network and the source named; `lifesignalctl responders` asks again")]
        }
        return [.ok("responders", running.reach)]
    }

    /// Whether anyone is told of a missed check-in or a long press (`DeviceConfiguration.reachFindings`).
    static func reach(_ configuration: DeviceConfiguration) -> [DoctorFinding] {
        let findings = configuration.reachFindings.map { finding in
            finding.severity == .problem ? DoctorFinding.problem(finding.check, finding.message, fix: finding.fix)
                : .warning(finding.check, finding.message, fix: finding.fix)
        }
        var ok: [DoctorFinding] = []
        if configuration.canReportMissedCheckIns {
            ok.append(.ok("notify", "a missed check-in is reported to " + targets(configuration, alerts: false)))
        }
        if configuration.alert.enabled {
            ok.append(.ok("help button", "a long press sends a help alert to " + targets(configuration, alerts: true)))
        }
        return ok + findings
    }

    private static func targets(_ configuration: DeviceConfiguration, alerts: Bool) -> String {
        var names: [String] = []
        if let healthchecks = configuration.healthchecks, alerts ? healthchecks.hasAlertCheck : healthchecks.hasCheckInCheck {
            names.append(alerts ? "the healthchecks alert check" : "the healthchecks check-in check")
        }
        if configuration.uplink != nil { names.append("the backend") }
        if !alerts, configuration.mqtt != nil {
            names.append("the MQTT broker (the overdue sensor; someone is told only if a Home Assistant automation does it)")
        }
        return names.joined(separator: " and ")
    }

    /// The package's service on simulated GPIO: the real button and LEDs are not used, and the
    /// demo's simulated board answers instead (usually a config left at its default).
    static func installedService(_ configuration: DeviceConfiguration, status: StatusReport?, unitFiles: [String]) -> [DoctorFinding] {
        guard let unit = unitFiles.first(where: { access($0, F_OK) == 0 }) else { return [] }
        let backend = status?.gpioBackend ?? configuration.gpio.backend.rawValue
        guard backend == GPIOConfiguration.Backend.simulated.rawValue else { return [] }
        return [.warning("gpio", "the service installed by the package (\(unit)) runs on simulated GPIO: the button and LEDs "
                         + "on the board are not used",
                         fix: "set [gpio] backend = \"libgpiod\" in \(DeviceConfiguration.defaultConfigPath), then "
                            + "sudo systemctl restart lifesignald")]
    }

    static func daemon(socket: String, environment: [String: String]) -> (DoctorFinding, StatusReport?) {
        let connection = ControlConnection(explicit: socket, environment: environment)
        do {
            let response = try connection.send(ControlRequest(.status), timeout: .seconds(5))
            guard let status = response.status else {
                return (.problem("daemon", "\(socket) answered without a status", fix: "restart it: sudo systemctl restart lifesignald"), nil)
            }
            let detail = "answers on \(socket): \(status.phase.replacingUnderscores()), gpio \(status.gpioBackend)"
            if let error = status.error {
                return (.problem("daemon", "\(detail); it reports: \(error)",
                                 fix: "see `lifesignalctl status` and `journalctl -u lifesignald`; it clears when its cause is gone"),
                        status)
            }
            return (.ok("daemon", detail), status)
        } catch {
            let permission = error.message.contains("ermission")
            return (.problem("daemon", error.message,
                             fix: permission
                                ? "run as root, or add yourself to group lifesignal: sudo adduser $USER lifesignal (then log in again)"
                                : "start it: sudo systemctl start lifesignald; if it does not stay up: journalctl -u lifesignald -b"),
                    nil)
        }
    }
}
