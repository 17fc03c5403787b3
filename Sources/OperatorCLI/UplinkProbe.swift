import CheckInModels
import DeviceAPI
import DeviceConfig
import HealthchecksSyncFeature
import UplinkClient
import UplinkLive

/// `lifesignalctl doctor`'s uplink checks: the token file, the backend answering an authenticated
/// request, the device's own healthchecks checks as the instance has them, and (`--send-test`)
/// each healthchecks check answering a `/log` entry. Each says what to fix.
enum UplinkProbe {
    /// No request waits longer than this, whatever `[uplink] timeout` says: doctor must answer.
    static let longestWait = Duration.seconds(10)

    /// `sendTest`: post a `/log` entry to each healthchecks check (nobody is alarmed: it changes
    /// no check's state). `settings`: the device's settings (the running daemon's), which the
    /// device's own checks' timeout and grace should match.
    static func check(_ configuration: DeviceConfiguration, sendTest: Bool = false,
                      settings: CheckInSettings? = nil) -> [DoctorFinding] {
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
            if let management = healthchecks.management {
                findings += managedChecks(management, heartbeat: healthchecks.heartbeat, timeout: timeout, sendTest: sendTest,
                                          settings: settings ?? configuration.configuredSettings ?? .default)
            } else {
                let checks = [("healthchecks check-in check", healthchecks.checkInURL),
                              ("healthchecks heartbeat check", healthchecks.heartbeatURL),
                              ("healthchecks alert check", healthchecks.alertURL)]
                for (name, url) in checks {
                    guard let url else { continue }
                    findings.append(sendTest ? ping(name, url: url, timeout: timeout)
                        : .ok(name, "\(ReachabilityCheck.shownURL(url)) (made by hand; not contacted: "
                              + "`lifesignalctl doctor --send-test` adds a test entry to its log)"))
                }
            }
        }
        return findings
    }

    /// The device's own checks: the key file, then each check as the instance has it, compared
    /// with what the device's settings ask for (`CheckTimings`).
    static func managedChecks(_ management: HealthchecksManagement, heartbeat: Duration, timeout: Duration, sendTest: Bool,
                              settings: CheckInSettings) -> [DoctorFinding] {
        let key: DeviceToken
        do {
            key = try DeviceToken.readHealthchecksAPIKey(path: management.apiKeyFile)
        } catch {
            return [.problem("healthchecks API key", error.message,
                             fix: "fix \(management.apiKeyFile) as the message says (run doctor with sudo to read it as the service does)")]
        }
        var findings = [DoctorFinding.ok("healthchecks API key", "\(management.apiKeyFile) is readable and not accessible to other users")]
        let specs = CheckTimings.specs(settings: settings, heartbeat: heartbeat, slugPrefix: management.slugPrefix)
        let found: [String: HealthchecksCheck]
        switch ReachabilityCheck.managedChecks(site: management.apiURL, key: key, slugs: specs.map(\.slug), timeout: timeout) {
        case let .success(checks): found = checks
        case let .failure(failure):
            return findings + [.problem("healthchecks checks", failure.message,
                                        fix: failure.httpStatus == 401
                                            ? "put a read-write API key of the project (Settings → API Access) in \(management.apiKeyFile)"
                                            : fix(for: failure, what: "[healthchecks] api_url"))]
        }
        for spec in specs {
            let name = "healthchecks \(spec.role.rawValue) check"
            guard let check = found[spec.slug] else {
                findings.append(.warning(name, "\(spec.slug) does not exist on \(management.apiURL) yet",
                                         fix: "start the device (sudo systemctl start lifesignald): it creates its checks once it runs"))
                continue
            }
            guard let pingURL = check.pingURL else {
                findings.append(.problem(name, "\(spec.slug) is there, but the API key is read-only: the device cannot update it "
                                         + "or learn where to ping it",
                                         fix: "put a read-write API key in \(management.apiKeyFile)"))
                continue
            }
            let timing = "timeout \(DurationText.humane(.seconds(check.timeout ?? 0))), grace \(DurationText.humane(.seconds(check.grace)))"
            if check.timeout != spec.timeout.wholeSeconds || check.grace != spec.grace.wholeSeconds {
                findings.append(.warning(name, "\(spec.slug) has \(timing), but the device's settings want timeout "
                                         + "\(DurationText.humane(spec.timeout)), grace \(DurationText.humane(spec.grace))",
                                         fix: "the running device updates it at its next settings change or restart "
                                            + "(sudo systemctl restart lifesignald); `lifesignalctl status` says why if it cannot"))
            } else if sendTest {
                findings.append(ping(name, url: pingURL, timeout: timeout, shownAs: "\(spec.slug) on \(management.apiURL)"))
            } else {
                findings.append(.ok(name, "\(spec.slug): \(check.status), \(timing) (in step with the device's settings)"))
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

    static func ping(_ name: String, url: String, timeout: Duration, shownAs: String? = nil) -> DoctorFinding {
        switch ReachabilityCheck.healthchecks(url: url, timeout: timeout, shownAs: shownAs) {
        case .success:
            return .ok(name, "\(shownAs ?? ReachabilityCheck.shownURL(url)) answers (a test entry was added to the check's log; "
                       + "its state is unchanged)")
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
