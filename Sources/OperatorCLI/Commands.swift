public import ArgumentParser
import CheckInModels
import ControlProtocol
import Glibc
import LinuxIO

/// lifesignalctl: the operator's view of and hand on the device.
public struct LifesignalCtl: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "lifesignalctl",
        abstract: "Control and inspect the LifeSignal check-in device.",
        discussion: """
            Talks to lifesignald over its control socket (--socket, $LIFESIGNAL_SOCKET, \
            /run/lifesignal/control.sock for the installed service, else the per-user default).

            Exit codes: 0 success; 1 the daemon refused (the message says why), or doctor found a \
            problem; 64 bad arguments; 69 the daemon is not reachable; 78 config check found the \
            configuration invalid.
            """,
        subcommands: [Status.self, CheckIn.self, History.self, Settings.self, Queue.self, Pings.self, Notifications.self,
                      Alert.self, DismissError.self, Sim.self, Config.self, Doctor.self, LEDCardCommand.self, Away.self,
                      Dependents.self, Pair.self, Responders.self],
        defaultSubcommand: Status.self
    )

    public init() {}

    /// `main()`, with what ArgumentParser prints escaped: its errors repeat arguments as given.
    public static func mainEscapingMessages() -> Never {
        do {
            var command = try parseAsRoot()
            try command.run()
            Glibc.exit(0)
        } catch {
            let code = exitCode(for: error)
            let message = fullMessage(for: error)
            if code == .success {
                if !message.isEmpty { print(message) }
            } else if !message.isEmpty {
                printToStandardError(message)
            }
            Glibc.exit(code.rawValue)
        }
    }
}

/// Options every command shares.
struct CommonOptions: ParsableArguments {
    @Option(name: .long, help: "Path of lifesignald's control socket.")
    var socket: String?

    @Flag(name: .long, help: "Print JSON instead of text (times in ISO 8601 UTC).")
    var json = false

    func send(_ request: ControlRequest) throws -> ControlResponse {
        let connection = ControlConnection(explicit: socket, environment: ProcessEnvironment.current)
        do {
            return try connection.send(request)
        } catch {
            printToStandardError("lifesignalctl: \(error.message)")
            throw ExitCode(error.exitCode)
        }
    }

    /// Prints `value` as JSON, or as text with control characters escaped (it repeats what the
    /// daemon, the backend or a person wrote; JSON escapes them itself).
    func emit<T: Encodable>(_ value: T, text: (T) -> String) {
        print(json ? ControlCoding.encode(value, pretty: true) : TerminalText.escapedLines(text(value)))
    }

    /// Sends a request whose answer is the device's status, and prints it.
    func sendAndShowStatus(_ request: ControlRequest) throws {
        guard let status = try send(request).status else { throw ExitCode(1) }
        emit(status, text: Formatting.status)
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Phase, deadline, last check-in, LEDs and upload queue.")
    @OptionGroup var options: CommonOptions

    func run() throws {
        try options.sendAndShowStatus(ControlRequest(.status))
    }
}

struct CheckIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-in",
        abstract: "Check in now, as if the button was pressed; returns once the check-in is stored durably.")
    @OptionGroup var options: CommonOptions

    func run() throws {
        let response = try options.send(ControlRequest(.checkIn))
        guard let report = response.checkIn else { throw ExitCode(1) }
        options.emit(report) { "Checked in at \(Formatting.localTime($0.time)) (id \($0.id))" }
    }
}

struct History: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Recent check-ins, newest first.")
    @OptionGroup var options: CommonOptions
    // `.unconditional`: "-5" is this option's value (to be refused as such), not another option.
    @Option(name: .long, parsing: .unconditional, help: "How many check-ins to show (1–10000).")
    var limit = ControlRequest.defaultHistoryLimit

    func validate() throws {
        if case let .failure(problem) = ControlRequest.historyLimit(limit) { throw ValidationError("--" + problem.message) }
    }

    func run() throws {
        let response = try options.send(ControlRequest(.history, limit: limit))
        let history = response.history ?? []
        // Away periods among the check-ins, so they never read as missed ones (JSON: `away list`).
        let away = options.json ? [] : (try? options.send(ControlRequest(.awayList, limit: limit)).awayPeriods) ?? []
        options.emit(history) { history in
            guard !history.isEmpty || !away.isEmpty else { return "No check-ins yet." }
            return Formatting.history(history, away: away)
        }
    }
}

struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show or change the check-in interval and reminder.",
        subcommands: [Show.self, Set.self],
        defaultSubcommand: Show.self
    )

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the interval and reminder.")
        @OptionGroup var options: CommonOptions

        func run() throws {
            let response = try options.send(ControlRequest(.settings))
            guard let settings = response.settings else { throw ExitCode(1) }
            options.emit(settings, text: Formatting.settings)
        }
    }

    struct Set: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Change the interval and/or reminder; the deadline moves at once from the last check-in.",
            discussion: "Offered: intervals 8h, 16h, 24h, 48h; reminders 1h, 2h, 4h, 6h. Any whole number of minutes within bounds is accepted (e.g. 12h30m); the reminder must be shorter than the interval.")
        @OptionGroup var options: CommonOptions
        @Option(name: .long, parsing: .unconditional, help: "Check-in interval, e.g. 24h, 16h, 12h30m.")
        var interval: String?
        @Option(name: .long, parsing: .unconditional, help: "Reminder lead before the deadline, e.g. 2h, 45m.")
        var reminder: String?

        func validate() throws {
            guard interval != nil || reminder != nil else { throw ValidationError("give --interval, --reminder or both") }
            // Whether each is a duration at all; the daemon's settings policy judges the values.
            for (name, text) in [("interval", interval), ("reminder", reminder)] {
                guard let text else { continue }
                if case let .failure(problem) = ControlRequest.duration(name, text) {
                    throw ValidationError("--" + problem.message)
                }
            }
        }

        func run() throws {
            let response = try options.send(ControlRequest(.setSettings, interval: interval, reminder: reminder))
            guard let settings = response.settings else { throw ExitCode(1) }
            options.emit(settings) { "Saved. " + Formatting.settings($0) }
        }
    }
}

struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check-ins waiting for upload: how many, the oldest, and how the upload is going.")
    @OptionGroup var options: CommonOptions

    func run() throws {
        let response = try options.send(ControlRequest(.queue))
        guard let queue = response.queue else { throw ExitCode(1) }
        options.emit(queue, text: Formatting.queue)
    }
}

struct Pings: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Responders' pings waiting for a press (the next check-in answers them all), and the answers' upload.")
    @OptionGroup var options: CommonOptions

    func run() throws {
        let response = try options.send(ControlRequest(.pings))
        guard let pings = response.pings else { throw ExitCode(1) }
        options.emit(pings, text: Formatting.pings)
    }
}

struct DismissError: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dismiss-error", abstract: "Clear the error the device is showing (the fault pattern).")
    @OptionGroup var options: CommonOptions

    func run() throws {
        try options.sendAndShowStatus(ControlRequest(.dismissError))
    }
}

struct Sim: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Drive the simulated GPIO (only when lifesignald runs with the simulated backend).",
        subcommands: [Press.self, Input.self]
    )

    struct Press: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Press the simulated button (with switch chatter) and release it after --hold.")
        @OptionGroup var options: CommonOptions
        @Option(name: .long, parsing: .unconditional,
                help: "How long to hold the button, e.g. 150ms (a check-in) or 4s (a long press).")
        var hold = DurationText.format(ControlRequest.defaultHold)

        func validate() throws {
            if case let .failure(problem) = ControlRequest.hold(hold) { throw ValidationError("--" + problem.message) }
        }

        func run() throws {
            try options.sendAndShowStatus(ControlRequest(.simPress, hold: hold))
        }
    }
}

struct Alert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask for help as a long press does, or cancel it while its cancel window is open.",
        subcommands: [Send.self, Cancel.self]
    )

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Open the alert's cancel window; when it ends the alert is stored and sent to the responders.")
        @OptionGroup var options: CommonOptions

        func run() throws {
            try options.sendAndShowStatus(ControlRequest(.alertSend))
        }
    }

    struct Cancel: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel the alert whose cancel window is open (an alert already stored cannot be recalled).")
        @OptionGroup var options: CommonOptions

        func run() throws {
            try options.sendAndShowStatus(ControlRequest(.alertCancel))
        }
    }
}

/// Writes `message` and a newline to standard error, control characters escaped line by line.
func printToStandardError(_ message: String) {
    var line = TerminalText.escapedLines(message) + "\n"
    line.withUTF8 { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
