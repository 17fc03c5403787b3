import DeviceAPI
public import UplinkClient

/// One-shot requests that show whether the configured targets can be reached with the device's
/// credentials, made on the calling thread (`lifesignalctl doctor`). They change nothing on the
/// targets: the backend is asked for its settings, a healthchecks check gets a `/log` entry.
public enum ReachabilityCheck {
    /// `GET /v1/settings` with the device's token.
    public static func backend(baseURL: String, token: DeviceToken, timeout: Duration) -> Result<RemoteSettings, UplinkFailure> {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let url = base + DeviceAPIPath.settings
        let request = HTTPRequest(method: .get, url: url, headers: ["Authorization: Bearer \(token.secret)",
                                                                  "Accept: application/json"], timeout: timeout)
        return CurlTransport.performBlocking(request)
            .mapError { UplinkClient.failure($0, request: "GET \(url)") }
            .flatMap { response in
                (200..<300).contains(response.status)
                    ? UplinkClient.settings(response, request: "GET \(url)")
                    : .failure(UplinkClient.failure(response, request: "GET \(url)"))
            }
    }

    /// `POST <url>/log`: an entry in the check's event log, without changing its state.
    public static func healthchecks(url: String, timeout: Duration) -> Result<Void, UplinkFailure> {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let shown = UplinkClient.shortened(base) + "/log"
        let request = HTTPRequest(method: .post, url: base + "/log", headers: ["Content-Type: text/plain; charset=utf-8"],
                                  body: Array("lifesignalctl doctor: checking that this check can be reached\n".utf8),
                                  timeout: timeout)
        return CurlTransport.performBlocking(request)
            .mapError { UplinkClient.failure($0, request: "POST \(shown)") }
            .flatMap { response in
                (200..<300).contains(response.status) ? .success(()) : .failure(UplinkClient.failure(response, request: "POST \(shown)"))
            }
    }

    /// Where a check-in ping would go, shortened (the full URL is a secret).
    public static func shownURL(_ url: String) -> String {
        UplinkClient.shortened(url)
    }
}
