import DeviceConfig
import Glibc
import LinuxIO

/// Finds and validates the configuration the daemon would use, for `config check` and `doctor`.
///
/// Same search as lifesignald: `--config FILE`, else `$LIFESIGNAL_CONFIG`, else
/// /etc/lifesignal/lifesignald.toml if it exists, else the built-in defaults. When the installed
/// service's file (/etc/lifesignal/lifesignald.toml) is the one in use, the defaults are resolved as the service sees them (systemd
/// sets `STATE_DIRECTORY=/var/lib/lifesignal` and `RUNTIME_DIRECTORY=/run/lifesignal`), so the
/// store and socket checked are the service's, not this user's.
struct ConfigSource {
    static let serviceStateDirectory = "/var/lib/lifesignal"
    static let serviceRuntimeDirectory = "/run/lifesignal"

    enum Outcome {
        case valid(DeviceConfiguration, path: String?)
        /// The file could not be read, or has mistakes (one per line, with file:line and key).
        case invalid(path: String, message: String)
    }

    static func load(explicitPath: String?, environment: [String: String]) -> Outcome {
        let requested = explicitPath ?? environment["LIFESIGNAL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = requested ?? DeviceConfiguration.defaultConfigPath
        let text: String?
        switch readTextFile(path) {
        case let .success(contents):
            text = contents
        case let .failure(failure) where failure.code == ENOENT && requested == nil:
            text = nil
        case let .failure(failure):
            let code = failure.code
            let hint = code == EACCES ? " (run as root, or as a member of group lifesignal)" : ""
            return .invalid(path: path, message: "cannot read config file \(path): \(errnoText(code))\(hint)")
        }
        var environment = environment
        if text != nil, path == DeviceConfiguration.defaultConfigPath {
            // The installed service's file: resolve default paths as systemd sets them for it.
            environment["STATE_DIRECTORY"] = environment["STATE_DIRECTORY"] ?? serviceStateDirectory
            environment["RUNTIME_DIRECTORY"] = environment["RUNTIME_DIRECTORY"] ?? serviceRuntimeDirectory
        }
        switch DeviceConfiguration.load(text: text, path: path, environment: environment) {
        case let .success(configuration):
            return .valid(configuration, path: text == nil ? nil : path)
        case let .failure(errors):
            return .invalid(path: path, message: errors.description)
        }
    }
}
