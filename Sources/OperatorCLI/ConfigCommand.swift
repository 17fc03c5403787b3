import ArgumentParser
import LinuxIO

struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Work with lifesignald's configuration file.",
        subcommands: [Check.self]
    )

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate the configuration without starting anything (the daemon need not run).",
            discussion: """
                Reads the file lifesignald would read (--config, $LIFESIGNAL_CONFIG, else \
                /etc/lifesignal/lifesignald.toml if present, else the built-in defaults) and applies the \
                LIFESIGNAL_* environment overrides. Every mistake is listed with file:line, the key and \
                what is allowed.

                Exit codes: 0 valid; 78 invalid or unreadable (what lifesignald would exit with).
                """)
        @Option(name: .shortAndLong, help: "Config file to check.")
        var config: String?

        func run() throws {
            switch ConfigSource.load(explicitPath: config, environment: ProcessEnvironment.current) {
            case let .success(loaded):
                let (configuration, path) = (loaded.configuration, loaded.path)
                print("\(path ?? "built-in defaults (no config file)"): configuration is valid")
                print("  gpio backend: \(configuration.gpio.backend.rawValue)"
                      + (configuration.gpio.backend == .libgpiod ? " (chip \(configuration.gpio.chip))" : ""))
                print("  store: \(configuration.storePath)")
                print("  control socket: \(configuration.controlSocket)")
            case let .failure(failure):
                printToStandardError(failure.message)
                throw ExitCode(78)
            }
        }
    }
}
