import ArgumentParser
import CheckInModels
import ControlProtocol

/// `lifesignalctl dependents`: on a watcher, the people it looks after (docs/dependents.md).
struct Dependents: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A watcher's dependents: how each is, pings, \"I'm on it\", adding and removing.",
        discussion: """
            Only on a watcher ([device] role = "watcher" or "both"). Add someone with the code \
            `lifesignalctl pair` prints on their device.
            """,
        subcommands: [List.self, Show.self, Add.self, Remove.self, Ping.self, ClearPing.self, OnIt.self, Sort.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Everyone, in the chosen order (dependents sort).")
        @OptionGroup var options: CommonOptions

        func run() throws {
            try options.showDependents(ControlRequest(.dependents, name: nil))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One dependent in full.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name, as the list shows it.") var name: String

        func run() throws {
            guard let report = try options.send(ControlRequest(.dependents, name: name)).dependents,
                  let item = report.dependents.first(where: { $0.name.lowercased() == name.lowercased() }) else { throw ExitCode(1) }
            options.emit(item, text: Formatting.dependentDetails)
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add someone by the code `lifesignalctl pair` printed on their device.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The pairing code (dashes and case do not matter).") var code: String
        @Option(name: .long, help: "The name to show them by (default: the name in the code).") var name: String?

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsAdd, name: name, code: code))
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop looking after someone added by code.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name.") var name: String

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsRemove, name: name))
        }
    }

    struct Ping: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Ask them \"are you OK?\": their device asks until they press.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name.") var name: String

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsPing, name: name))
        }
    }

    struct ClearPing: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "clear-ping", abstract: "Withdraw your ping.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name.") var name: String

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsClearPing, name: name))
        }
    }

    struct OnIt: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "on-it", abstract: "Tell them (and the other watchers) you are on the way, as a press does.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name.") var name: String

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsOnIt, name: name))
        }
    }

    struct Sort: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Order the list by status (loudest first), name or deadline; kept.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "status, name or deadline.") var option: String

        func validate() throws {
            guard DependentsSortOption(rawValue: option.lowercased()) != nil else {
                throw ValidationError("sort by status, name or deadline, not \(option)")
            }
        }

        func run() throws {
            try options.showDependents(ControlRequest(.dependentsSort, name: nil, sort: option.lowercased()))
        }
    }
}

extension CommonOptions {
    /// Sends a dependents request and prints the list it answers with.
    func showDependents(_ request: ControlRequest) throws {
        guard let report = try send(request).dependents else { throw ExitCode(1) }
        emit(report, text: Formatting.dependents)
    }
}

extension ControlRequest {
    init(_ command: Command, name: String?, code: String? = nil, sort: String? = nil) {
        self.init(command, limit: nil)
        self.name = name
        self.code = code
        self.sort = sort
    }
}
