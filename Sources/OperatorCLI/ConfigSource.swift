import DeviceClock
import DeviceClockLive
import DeviceConfig
import LinuxIO

/// The configuration the daemon would use, found the daemon's way (`ConfigurationFile`), with the
/// installed service's paths when its file is the one in use (for `config check` and `doctor`).
enum ConfigSource {
    static func load(explicitPath: String?, environment: [String: String]) -> Result<ConfigurationFile.Loaded, ConfigurationFile.Failure> {
        ConfigurationFile.load(explicitPath: explicitPath, environment: environment, asTheServiceSeesIt: true, read: { path in
            readRegularFile(path).mapError { $0.isMissing ? .missing : .unreadable($0.description, permissionDenied: $0.isPermissionDenied) }
        }, zoneExists: TimeZoneClient.zoneExists)
    }
}
