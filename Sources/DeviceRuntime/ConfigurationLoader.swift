public import DeviceConfig
import Glibc
import LinuxIO

/// Finds and loads the configuration: `--config PATH`, else `$LIFESIGNAL_CONFIG`, else
/// /etc/lifesignal/lifesignald.toml if it exists, else the embedded defaults (simulated GPIO, a
/// local store) so that the demo needs no file at all.
public enum ConfigurationLoader {
    public struct Loaded: Sendable {
        public var configuration: DeviceConfiguration
        /// The file it came from, or nil for the embedded defaults.
        public var path: String?
    }

    public static func load(explicitPath: String?, environment: [String: String]) -> Result<Loaded, StartupError> {
        let requested = explicitPath ?? environment["LIFESIGNAL_CONFIG"]
        let path = requested ?? DeviceConfiguration.defaultConfigPath
        let text: String?
        switch readTextFile(path) {
        case let .success(contents):
            text = contents
        case .failure(let error) where error.code == ENOENT && requested == nil:
            text = nil  // no system config: run on the embedded defaults
        case let .failure(error):
            return .failure(.config("cannot read config file \(path): \(errnoText(error.code))"))
        }
        switch DeviceConfiguration.load(text: text, path: path, environment: environment) {
        case let .success(configuration):
            return .success(Loaded(configuration: configuration, path: text == nil ? nil : path))
        case let .failure(errors):
            return .failure(.config("\(errors)"))
        }
    }
}
