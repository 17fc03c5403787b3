import CheckInModels

/// The daemon's command line: two options, parsed by hand. A general argument parser would link
/// FoundationEssentials and its own help machinery into the one binary that runs for years on a
/// small board (BENCHMARKS.md, "Memory and size"); its man page is `deploy/lifesignald.8`.
struct DaemonArguments: Equatable {
    enum Action: Equatable {
        case run
        case checkConfig
        case help
    }

    var config: String?
    var action: Action = .run

    static let usage = """
        USAGE: lifesignald [--config <file>] [--check-config]

        The LifeSignal check-in device daemon: one press says "I'm OK".

        OPTIONS:
          -c, --config <file>  Config file (default: $LIFESIGNAL_CONFIG, else
                               /etc/lifesignal/lifesignald.toml if present, else built-in defaults).
          --check-config       Validate the configuration, print the result and exit (78 if invalid).
          -h, --help           Show this help and exit.

        Exit codes: 0 stopped cleanly; 64 wrong arguments; 78 configuration error (fix the file; do
        not restart); 69 GPIO line unavailable (wrong name, busy, no permission; a missing chip is
        waited for), libcurl missing for [uplink]/[healthchecks] (package libcurl4) or libmosquitto
        for [mqtt] (package libmosquitto1); 71 OS resource (control socket) failed; 70 internal error.
        See lifesignald(8).
        """

    /// Parses `arguments` (without the program's name). The error says which argument is wrong.
    static func parse(_ arguments: [String]) -> Result<DaemonArguments, ArgumentError> {
        var parsed = DaemonArguments()
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            switch argument {
            case "-c", "--config":
                guard let value = remaining.popFirst(), !value.isEmpty, !value.hasPrefix("-") else {
                    return .failure(ArgumentError("\(argument) needs a file name"))
                }
                guard parsed.config == nil else { return .failure(ArgumentError("--config is given twice")) }
                parsed.config = value
            case _ where argument.hasPrefix("--config="):
                let value = String(argument.dropFirst("--config=".count))
                guard !value.isEmpty else { return .failure(ArgumentError("--config needs a file name")) }
                guard parsed.config == nil else { return .failure(ArgumentError("--config is given twice")) }
                parsed.config = value
            case "--check-config":
                parsed.action = .checkConfig
            case "-h", "--help":
                return .success(DaemonArguments(config: nil, action: .help))
            default:
                let shown = "'\(TerminalText.escaped(argument))'"
                return .failure(ArgumentError(argument.hasPrefix("-") ? "unknown option \(shown)" : "unexpected argument \(shown)"))
            }
        }
        return .success(parsed)
    }
}

struct ArgumentError: Error, Equatable {
    var message: String
    init(_ message: String) { self.message = message }
}
