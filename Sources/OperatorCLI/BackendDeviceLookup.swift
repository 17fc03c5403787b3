import ControlProtocol
import DeviceAPI
import DeviceConfig
import LinuxIO
import UplinkLive

/// `GET /v1/device` with the device's token: the device's id at the backend, which a watcher's
/// backend account follows it by (`lifesignalctl pair --source backend`).
enum BackendDeviceLookup {
    static let path = "/v1/device"

    static func device(_ uplink: UplinkConfiguration) -> Result<DeviceIdentity, PairFailure> {
        let token: DeviceToken
        do {
            token = try DeviceToken.read(path: uplink.tokenFile)
        } catch {
            return .failure(PairFailure("\(error.message) (run lifesignalctl pair with sudo to read it as the service does)"))
        }
        let base = uplink.url.hasSuffix("/") ? String(uplink.url.dropLast()) : uplink.url
        let request = HTTPRequest(method: .get, url: base + path,
                                  headers: [token.authorizationHeader, "Accept: application/json",
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

    static func device(from body: [UInt8], request: String) -> Result<DeviceIdentity, PairFailure> {
        APICoding.decode(DeviceIdentity.self, from: body).mapError { error in
            PairFailure("\(request): the backend's answer is not a device (\(error.message))")
        }
    }
}
