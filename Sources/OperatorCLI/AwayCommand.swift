import ArgumentParser
import CheckInModels
import ControlProtocol

/// `lifesignalctl away`: no reminder and no overdue until a time; the targets are told.
struct Away: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Away mode: no reminder and no overdue until a time (the backend and healthchecks are told).",
        discussion: """
            A press ends it early and checks in (unless [away] press_ends = false). When it ends, a fresh \
            countdown starts. It survives restarts and power cuts; `lifesignalctl history` shows it.
            """,
        subcommands: [Start.self, End.self, List.self],
        defaultSubcommand: Start.self)

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "start", abstract: "Go away until a time.")
        @OptionGroup var options: CommonOptions
        @Option(name: .long, parsing: .unconditional, help: """
            How long (3d, 12h) or until when on the device's clock: 18:00 (the next one), 2026-12-24 (its start), \
            2026-12-24 18:00.
            """)
        var until: String

        func validate() throws {
            if case let .failure(problem) = AwayUntil.parsing(until) { throw ValidationError("--" + problem.message) }
        }

        func run() throws {
            let response = try options.send(ControlRequest(.away, until: until))
            guard let away = response.away else { throw ExitCode(1) }
            options.emit(away, text: Formatting.away)
        }
    }

    struct End: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End away mode now: a fresh countdown starts.")
        @OptionGroup var options: CommonOptions

        func run() throws {
            let response = try options.send(ControlRequest(.awayEnd))
            guard let away = response.away else { throw ExitCode(1) }
            options.emit(away) { "Away mode ended: a fresh countdown starts now. " + Formatting.away($0) }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Away periods, newest first.")
        @OptionGroup var options: CommonOptions
        @Option(name: .long, parsing: .unconditional, help: "How many to show (1–10000).")
        var limit = ControlRequest.defaultHistoryLimit

        func validate() throws {
            if case let .failure(problem) = ControlRequest.historyLimit(limit) { throw ValidationError("--" + problem.message) }
        }

        func run() throws {
            let periods = try options.send(ControlRequest(.awayList, limit: limit)).awayPeriods ?? []
            options.emit(periods) { $0.isEmpty ? "Never away." : $0.map(Formatting.awayPeriod).joined(separator: "\n") }
        }
    }
}

extension Sim {
    struct Input: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a simulated input as a UPS HAT would: mains (on: present) or low_battery (on: low).")
        @OptionGroup var options: CommonOptions
        @Argument(help: "mains or low_battery.") var line: String
        @Argument(help: "on or off.") var level: String

        func validate() throws {
            guard ["on", "off"].contains(level) else { throw ValidationError("the level is on or off, not \(level)") }
        }

        func run() throws {
            try options.sendAndShowStatus(ControlRequest(.simInput, line: line, active: level == "on"))
        }
    }
}
