import ArgumentParser
import ControlProtocol

/// `lifesignalctl responders`: on a person's device, who will be told when a check-in is missed or
/// help is asked for, and through which path (docs/responders.md).
struct Responders: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Who will be told of a missed check-in or a help alert, and through which path.",
        discussion: """
            Watcher devices that added this device's pairing code (`lifesignalctl pair`), the people \
            the LifeSignal backend tells, and the healthchecks integrations of the device's checks. \
            The list ends with one line: who is told of what, or that nobody is.
            """,
        subcommands: [List.self, Show.self, Remove.self, Allow.self],
        defaultSubcommand: List.self)

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Everyone, and who is told of what (the sources are asked first).")
        @OptionGroup var options: CommonOptions

        func run() throws {
            try options.showResponders(ControlRequest(.responders, name: nil))
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "One responder in full: what they are, the path, what they hear of.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "Their name, as the list shows it.") var name: String

        func run() throws {
            guard let report = try options.send(ControlRequest(.responders, name: name)).responders,
                  let item = report.responders.first(where: { $0.name.lowercased() == name.lowercased() })
                    ?? report.responders.first(where: { $0.id == name }) else { throw ExitCode(1) }
            options.emit(item, text: Formatting.responderDetails)
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a watcher device: its pings and \"I'm on it\" are refused from now on.",
            discussion: "Backend contacts are removed in the LifeSignal app; healthchecks integrations on the healthchecks site.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The watcher's name, as the list shows it.") var name: String

        func run() throws {
            try options.showResponders(ControlRequest(.respondersRemove, name: name))
        }
    }

    struct Allow: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Let a removed watcher back: it is listed once it confirms again.")
        @OptionGroup var options: CommonOptions
        @Argument(help: "The removed watcher's name (or id), as the list shows it.") var name: String

        func run() throws {
            try options.showResponders(ControlRequest(.respondersAllow, name: name))
        }
    }
}

extension CommonOptions {
    /// Sends a responders request and prints the list it answers with, ending with the reach line.
    func showResponders(_ request: ControlRequest) throws {
        guard let report = try send(request).responders else { throw ExitCode(1) }
        emit(report, text: Formatting.responders)
    }
}
