import DeviceConfig
import UplinkClient
import UplinkLive

/// `lifesignalctl doctor`'s uplink checks: the token file, the backend answering an authenticated
/// request, and the healthchecks checks answering a `/log` entry. Each says what to fix.
enum UplinkProbe {
    /// No request waits longer than this, whatever `[uplink] timeout` says: doctor must answer.
    static let longestWait = Duration.seconds(10)

    static func check(_ configuration: DeviceConfiguration) -> [DoctorFinding] {
        var findings: [DoctorFinding] = []
        if configuration.uplink != nil || configuration.healthchecks != nil {
            // Loaded only now, as the daemon does: without it no request below could be made.
            let library = library()
            guard library.outcome == .ok else { return [library] }
            findings.append(library)
        }
        if let uplink = configuration.uplink {
            findings += backend(uplink)
        } else {
            findings.append(.ok("backend", "none configured ([uplink] has no url): an offline device, check-ins stay on it"))
        }
        if let healthchecks = configuration.healthchecks {
            let timeout = min(healthchecks.timeout, longestWait)
            for (name, url) in [("healthchecks check-in check", healthchecks.checkInURL),
                                ("healthchecks heartbeat check", healthchecks.heartbeatURL)] {
                guard let url else { continue }
                findings.append(ping(name, url: url, timeout: timeout))
            }
        }
        return findings
    }

    /// libcurl (loaded with dlopen, as lifesignald loads it for `[uplink]` and `[healthchecks]`).
    static func library() -> DoctorFinding {
        do {
            return .ok("libcurl", try LibCurl.shared().versionText)
        } catch {
            return .problem("libcurl", error.description, fix: "sudo apt install libcurl4")
        }
    }

    static func backend(_ uplink: UplinkConfiguration) -> [DoctorFinding] {
        let token: DeviceToken
        do {
            token = try DeviceToken.read(path: uplink.tokenFile)
        } catch {
            return [.problem("uplink token", error.message,
                             fix: "fix \(uplink.tokenFile) as the message says (run doctor with sudo to read it as the service does)")]
        }
        let tokenFinding = DoctorFinding.ok("uplink token", "\(uplink.tokenFile) is readable and not accessible to other users")
        switch ReachabilityCheck.backend(baseURL: uplink.url, token: token, timeout: min(uplink.timeout, longestWait)) {
        case let .success(settings):
            return [tokenFinding, .ok("backend", "\(uplink.url) accepts the device's token (settings version \(settings.version))")]
        case let .failure(failure):
            return [tokenFinding, .problem("backend", failure.message, fix: fix(for: failure, what: "[uplink] url"))]
        }
    }

    static func ping(_ name: String, url: String, timeout: Duration) -> DoctorFinding {
        switch ReachabilityCheck.healthchecks(url: url, timeout: timeout) {
        case .success:
            return .ok(name, "\(ReachabilityCheck.shownURL(url)) answers (a doctor entry was added to the check's log)")
        case let .failure(failure):
            return .problem(name, failure.message, fix: fix(for: failure, what: "the ping URL in [healthchecks]"))
        }
    }

    static func fix(for failure: UplinkFailure, what: String) -> String {
        switch failure.httpStatus {
        case 401?, 403?:
            return "the server does not accept the device's token: put the token issued for this device in [uplink] token_file"
        case 404?:
            return "the server has no such endpoint or check: compare \(what) with the one the service gave you"
        case let status? where failure.kind == .transient:
            return "the server answered \(status), a temporary failure: the device retries by itself; if it lasts, ask the server's operator"
        case _? :
            return "the server refused the request: compare \(what) with the server's documentation"
        case nil where failure.kind == .permanent:
            return "check \(what) (scheme, host) and that the server's TLS certificate is trusted by this device"
        case nil:
            return "check the device's network (ip route, a default route and DNS), \(what), and that the server is up"
        }
    }
}
