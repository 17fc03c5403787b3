import CheckInModels

/// Which configuration the daemon runs on, and where it came from — the one search both
/// `lifesignald` and `lifesignalctl` (`config check`, `doctor`) make:
/// `--config FILE`, else `$LIFESIGNAL_CONFIG` (an empty value counts as unset), else
/// `/etc/lifesignal/lifesignald.toml` if it exists, else the embedded defaults (simulated GPIO, a
/// local store), so the demo needs no file at all. A file that was asked for must be readable.
public enum ConfigurationFile {
    /// How reading a file failed, as the reader (the caller's file system access) tells it.
    public enum ReadFailure: Error, Sendable {
        /// No such file.
        case missing
        /// Anything else, with the system's reason; `permissionDenied` adds what to do about it.
        case unreadable(String, permissionDenied: Bool)
    }

    public struct Loaded: Sendable {
        public var configuration: DeviceConfiguration
        /// The file it came from, or nil for the embedded defaults.
        public var path: String?

        public init(configuration: DeviceConfiguration, path: String?) {
            self.configuration = configuration
            self.path = path
        }
    }

    /// The file could not be read, or has mistakes (one per line, with file:line and key).
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var path: String
        public var message: String
        public var description: String { message }
    }

    /// Where systemd puts the installed service's state and socket (`StateDirectory=`,
    /// `RuntimeDirectory=` in its unit).
    public static let serviceStateDirectory = "/var/lib/lifesignal"
    public static let serviceRuntimeDirectory = "/run/lifesignal"

    /// - Parameters:
    ///   - asTheServiceSeesIt: when the installed service's file is the one in use, resolve the
    ///     default store and socket as systemd sets them up for the service, not for this user
    ///     (`lifesignalctl` run by hand should look where the service is).
    ///   - read: reads a whole regular file.
    ///   - zoneExists: whether the system's tzdata has a zone (`[check_in] time_zone`).
    public static func load(
        explicitPath: String?, environment: [String: String], asTheServiceSeesIt: Bool = false,
        read: (String) -> Result<[UInt8], ReadFailure>, zoneExists: (String) -> Bool = { _ in true }
    ) -> Result<Loaded, Failure> {
        let requested = explicitPath ?? environment["LIFESIGNAL_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        let path = requested ?? DeviceConfiguration.defaultConfigPath
        let contents: [UInt8]?
        switch read(path) {
        case let .success(bytes):
            contents = bytes
        case .failure(.missing) where requested == nil:
            contents = nil  // no system config: the embedded defaults
        case .failure(.missing):
            return .failure(Failure(path: path, message: "cannot read config file \(TerminalText.escaped(path)): no such file"))
        case let .failure(.unreadable(reason, permissionDenied)):
            let hint = permissionDenied ? " (run as root, or as a member of group lifesignal)" : ""
            return .failure(Failure(path: path,
                                    message: "cannot read config file \(TerminalText.escaped(path)): \(reason)\(hint)"))
        }
        var environment = environment
        if asTheServiceSeesIt, contents != nil, path == DeviceConfiguration.defaultConfigPath {
            environment["STATE_DIRECTORY"] = environment["STATE_DIRECTORY"] ?? serviceStateDirectory
            environment["RUNTIME_DIRECTORY"] = environment["RUNTIME_DIRECTORY"] ?? serviceRuntimeDirectory
        }
        switch DeviceConfiguration.load(contents: contents, path: path, environment: environment) {
        case let .success(configuration):
            if let problem = configuration.timeZoneProblem(exists: zoneExists) {
                return .failure(Failure(path: path, message: problem.description))
            }
            return .success(Loaded(configuration: configuration, path: contents == nil ? nil : path))
        case let .failure(errors):
            return .failure(Failure(path: path, message: errors.description))
        }
    }
}
