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

struct Errno: Error {
    var code: Int32
}

/// Reads a whole (small) text file; the errno on failure.
func readTextFile(_ path: String, limit: Int = 1 << 20) -> Result<String, Errno> {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return .failure(Errno(code: errno)) }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            return .failure(Errno(code: errno))
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
        if bytes.count > limit { return .failure(Errno(code: EFBIG)) }
    }
    return .success(String(decoding: bytes, as: UTF8.self))
}
