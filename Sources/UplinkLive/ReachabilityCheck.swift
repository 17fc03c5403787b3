public import DeviceAPI
public import UplinkClient

/// One-shot requests that show whether the configured targets can be reached with the device's
/// credentials, made on the calling thread (`lifesignalctl doctor`). They change nothing on the
/// targets: the backend is asked for its settings, a healthchecks check gets a `/log` entry.
public enum ReachabilityCheck {
    /// `GET /v1/settings` with the device's token.
    public static func backend(baseURL: String, token: DeviceToken, timeout: Duration) -> Result<RemoteSettings, UplinkFailure> {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let url = base + DeviceAPIPath.settings
        let request = HTTPRequest(method: .get, url: url, headers: [token.authorizationHeader,
                                                                  "Accept: application/json", userAgent], timeout: timeout)
        return CurlTransport.performBlocking(request)
            .mapError { UplinkClient.failure($0, request: "GET \(url)") }
            .flatMap { response in
                (200..<300).contains(response.status)
                    ? UplinkClient.settings(response, request: "GET \(url)")
                    : .failure(UplinkClient.failure(response, request: "GET \(url)"))
            }
    }

    /// `POST <url>/log`: an entry in the check's event log, without changing its state (so
    /// nobody is alarmed). `shownAs`: how to name the check (a ping URL is shown shortened).
    public static func healthchecks(url: String, timeout: Duration, shownAs: String? = nil) -> Result<Void, UplinkFailure> {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let shown = (shownAs ?? UplinkClient.shortened(base)) + "/log"
        let request = HTTPRequest(method: .post, url: base + "/log", headers: ["Content-Type: text/plain; charset=utf-8", userAgent],
                                  body: Array(("lifesignalctl doctor --send-test: a test entry from the LifeSignal device, to show "
                                      + "that this check can be reached; it changes nothing\n").utf8),
                                  timeout: timeout)
        return CurlTransport.performBlocking(request)
            .mapError { UplinkClient.failure($0, request: "POST \(shown)") }
            .flatMap { response in
                (200..<300).contains(response.status) ? .success(()) : .failure(UplinkClient.failure(response, request: "POST \(shown)"))
            }
    }

    /// The device's own checks as the instance has them (read only): each slug's check, or nil
    /// when it does not exist yet. With a read-only key the checks come without their ping URLs.
    public static func managedChecks(site: String, key: DeviceToken, slugs: [String], timeout: Duration)
        -> Result<[String: HealthchecksCheck], UplinkFailure> {
        let base = site.hasSuffix("/") ? String(site.dropLast()) : site
        var found: [String: HealthchecksCheck] = [:]
        for slug in slugs {
            let url = base + HealthchecksPath.checks + "?slug=" + percentEncoded(slug)
            let request = HTTPRequest(method: .get, url: url, headers: ["X-Api-Key: \(key.secret)", "Accept: application/json", userAgent],
                                      timeout: timeout)
            let result = CurlTransport.performBlocking(request)
                .mapError { UplinkClient.failure($0, request: "GET \(url)") }
                .flatMap { response -> Result<HealthchecksCheckList, UplinkFailure> in
                    guard (200..<300).contains(response.status) else {
                        return .failure(ManagedChecks.failure(response, request: "GET \(url)"))
                    }
                    return ManagedChecks.decoded(HealthchecksCheckList.self, response, site: base)
                }
            switch result {
            case let .success(list): found[slug] = list.checks.first { $0.slug == slug }
            case let .failure(failure): return .failure(failure)
            }
        }
        return .success(found)
    }

    /// What lifesignalctl's own requests say they are.
    static let userAgent = "User-Agent: lifesignalctl/\(DeviceSoftware.version)"

    /// Where a check-in ping would go, shortened (the full URL is a secret).
    public static func shownURL(_ url: String) -> String {
        UplinkClient.shortened(url)
    }
}
