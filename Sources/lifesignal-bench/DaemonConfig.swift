import Glibc
import LinuxIO

/// A config file for a benchmark daemon in its own folder: simulated GPIO, no terminal, a day-long
/// interval (nothing changes by itself while measuring), the shortest acknowledgement, and an
/// acknowledgement pattern (red on) that differs from "checked in" in its very first step, so the
/// acknowledgement shows as an LED change at once.
struct DaemonConfig {
    let path: String
    let socket: String
    let store: String

    static func write(in folder: String, extra: String = "") throws -> DaemonConfig {
        for path in [folder, folder + "/state", folder + "/run"] where mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw SystemError.current("mkdir", path)
        }
        let config = DaemonConfig(path: folder + "/lifesignald.toml", socket: folder + "/run/control.sock",
                                  store: folder + "/state/lifesignal.sqlite")
        // TOML defines a table once: an extra [simulator] table gets the bench's setting instead.
        let lines = extra.split(separator: "\n", omittingEmptySubsequences: false)
        let extraHasSimulator = lines.contains("[simulator]")
        let extra = lines.map { $0 == "[simulator]" ? "[simulator]\nterminal = \"off\"" : String($0) }.joined(separator: "\n")
        let simulator = extraHasSimulator ? "" : "[simulator]\nterminal = \"off\""
        let text = """
            [check_in]
            interval = "24h"
            reminder = "1h"

            [store]
            path = "\(config.store)"

            [control]
            socket = "\(config.socket)"

            \(simulator)

            [feedback]
            acknowledgement = "200ms"

            [log]
            level = "info"

            [patterns.acknowledged]
            red = "on"
            \(extra)
            """
        guard let file = fopen(config.path, "w") else { throw SystemError.current("fopen", config.path) }
        defer { fclose(file) }
        guard fputs(text, file) >= 0 else { throw SystemError.current("write", config.path) }
        return config
    }
}
