import ControlProtocol
import DeviceAPI
import DeviceConfig
import LinuxIO
import UplinkLive

/// `GET /v1/device` with the device's token: the device's id at the backend, which a watcher's
/// backend account follows it by (`lifesignalctl pair --source backend`).
enum BackendDeviceLookup {
    static let path = "/v1/device"

    /// What the backend answers: its id for the calling device, and its name there.
    struct Device: Decodable {
        var id: String
        var name: String?
    }

    static func deviceID(_ uplink: UplinkConfiguration) -> Result<String, PairFailure> {
        let token: String
        do {
            // The token file's rules (DeviceToken.read): a regular file only its owner reads, one line.
            token = try SecretFile.read(path: uplink.tokenFile, what: "the uplink token file", secret: "the device's token")
        } catch {
            return .failure(PairFailure("\(error.message) (run lifesignalctl pair with sudo to read it as the service does)"))
        }
        guard !token.isEmpty, token.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            return .failure(PairFailure("the uplink token file \(uplink.tokenFile) must hold the device's token alone on one line"))
        }
        let base = uplink.url.hasSuffix("/") ? String(uplink.url.dropLast()) : uplink.url
        let request = HTTPRequest(method: .get, url: base + path,
                                  headers: ["Authorization: Bearer \(token)", "Accept: application/json",
                                            "User-Agent: lifesignalctl/\(DeviceSoftware.version)"],
                                  timeout: min(uplink.timeout, UplinkProbe.longestWait))
        let shown = "GET \(base)\(path)"
        switch CurlTransport.performBlocking(request) {
        case let .failure(failure):
            return .failure(PairFailure("\(shown) failed: \(failure.message); check the device's network and [uplink] url, "
                                        + "or pair through another source (--source)"))
        case let .success(response):
            switch response.status {
            case 200..<300:
                return device(from: response.body, request: shown)
            case 401, 403:
                return .failure(PairFailure("\(shown): the backend refused the device's token (HTTP \(response.status)); put the "
                                            + "token issued for this device in \(uplink.tokenFile)"))
            case 404:
                return .failure(PairFailure("\(shown): the backend has no such endpoint (HTTP 404), so it cannot pair devices yet; "
                                            + "pair through [mqtt] or [healthchecks] (--source), or ask the backend's operator"))
            default:
                return .failure(PairFailure("\(shown): the backend answered HTTP \(response.status); try again later"))
            }
        }
    }

    static func device(from body: [UInt8], request: String) -> Result<String, PairFailure> {
        switch ControlCoding.decode(Device.self, from: String(decoding: body, as: UTF8.self)) {
        case let .success(device): .success(device.id)
        case let .failure(error): .failure(PairFailure("\(request): the backend's answer is not a device (\(error.message))"))
        }
    }
}
