import DevServer
import TestSupport
import UplinkClient
import UplinkLive

extension LoopbackBackend {
    /// The live client for this backend, with `token`, over `transport`.
    func client(token: String = LoopbackBackend.token, timeout: Duration = .seconds(5), transport: CurlTransport) -> UplinkClient {
        UplinkClient.live(baseURL: baseURL, token: DeviceToken(secret: token), timeout: timeout, transport: transport)
    }
}

extension Result {
    var failure: Failure? {
        if case let .failure(failure) = self { return failure }
        return nil
    }
}
