public import CheckInModels
public import UplinkClient

/// Where a healthchecks check's pings go.
public enum PingTarget: Sendable {
    /// A hand-made check: its ping URL from the config, `<base>/<uuid>` or `<base>/<ping-key>/<slug>`.
    case url(String)
    /// One of the device's own checks, found through the management API.
    case managed(CheckRole, ManagedChecks)
}

extension UplinkClient {
    /// Pings to one healthchecks.io-compatible check (docs/healthchecks.md): `uploadBatch` pings
    /// once per check-in, oldest first, with the press time and id in the body; `sendHeartbeat`
    /// pings with the uptime and queue depth; `sendAlert` sends a help alert as a `fail` signal.
    /// A ping counts only when the check answered 2xx.
    ///
    /// - Parameters:
    ///   - target: the check's ping URL, or the device's own check. A ping URL is a secret (anyone
    ///     who has it can ping), so logs and status show it shortened.
    ///   - lateAfter: a check-in pressed longer ago than this goes to `<url>/log` instead: recorded
    ///     by the check without marking it up, so a backlog sent after an outage cannot make an
    ///     overdue person look checked in. A press whose age is unknown (reboot, clock not
    ///     synchronised) counts as late.
    ///   - now: the device's clock, to tell how long ago a check-in was pressed.
    public static func healthchecks(
        _ target: PingTarget, timeout: Duration, lateAfter: Duration, now: @escaping @Sendable () -> DeviceInstant,
        transport: CurlTransport
    ) -> UplinkClient {
        let pinger = Pinger(target: target, timeout: timeout, transport: transport)
        return UplinkClient(
            endpoint: pinger.shown,
            uploadCheckIns: { _ in .failure(UplinkFailure(.permanent, "use uploadBatch for a healthchecks check")) },
            sendAlert: { alert in await pinger.sendAlert(alert).map { [alert.id] } },
            uploadBatch: { batch in
                var delivered: [CheckInID] = []
                for record in batch {
                    let age = now().elapsedTime(since: record.at)
                    let late = !age.isKnown || age.lowerBound > lateAfter
                    let result = await pinger.ping(late ? "/log" : "", body: pingBody(record, late: late ? age : nil))
                    if case let .failure(failure) = result {
                        // What went through stays delivered; the failure comes back with the next batch.
                        return delivered.isEmpty ? .failure(failure) : .success(UploadOutcome(acknowledged: delivered))
                    }
                    delivered.append(record.id)
                }
                return .success(UploadOutcome(acknowledged: delivered))
            },
            sendHeartbeat: { heartbeat in
                await pinger.ping("", body: "LifeSignal device heartbeat\nboot: \(heartbeat.bootID)\n"
                    + "uptime: \(DurationText.humane(heartbeat.uptime))\ncheck-ins not yet delivered: \(heartbeat.queueDepth)\n")
            }
        )
        // The device's own events go to the check's log: recorded and shown, never a check-in.
        .withSendEvent { event in await pinger.ping("/log", body: eventBody(event)).map { [event.id] } }
    }

    /// A device event as the check's event log shows it.
    static func eventBody(_ event: PowerEvent) -> String {
        "LifeSignal device: \(event.summary)\n"
            + "at: \(event.at.wall.iso8601)" + (event.at.wallClockSynchronized ? "\n" : " (clock not synchronised)\n")
            + "event: \(event.kind.rawValue) \(event.id)\n"
    }

    /// Whether a check-in's ping would arrive too long after the press to count as a fresh one.
    static func isLate(_ record: CheckInRecord, now: DeviceInstant, after limit: Duration) -> Bool {
        let elapsed = now.elapsedTime(since: record.at)
        return !elapsed.isKnown || elapsed.lowerBound > limit
    }

    /// The ping's body, shown in the check's event log. `late`: how long after the press it is
    /// sent (a lower bound; unknown across a reboot without a synchronised clock), when it is late.
    static func pingBody(_ record: CheckInRecord, late: ElapsedTime?) -> String {
        var body = "LifeSignal check-in \(record.id)\n"
        body += "pressed: \(record.at.wall.iso8601)" + (record.at.wallClockSynchronized ? "\n" : " (clock not synchronised)\n")
        body += "source: \(record.source.rawValue)\n"
        if let late {
            body += late.isKnown
                ? "delivered late, \(DurationText.humane(late.lowerBound)) after the press (the device could not reach this "
                    + "server until now): recorded, not counted as a fresh check-in\n"
                : "delivered late, an unknown time after the press (the device restarted without a synchronised clock): "
                    + "recorded, not counted as a fresh check-in\n"
        }
        return body
    }

    /// The help alert as the check's event log shows it.
    static func alertBody(_ alert: AlertRecord) -> String {
        "LifeSignal HELP ALERT \(alert.id)\n"
            + "asked for help: \(alert.at.wall.iso8601)" + (alert.at.wallClockSynchronized ? "\n" : " (clock not synchronised)\n")
            + "source: \(alert.source == .button ? "the button was held" : "lifesignalctl alert send")\n"
            + "Call the person now.\n"
    }

    /// `https://hc-ping.com/…7f3a`: enough to tell checks apart, not enough to ping them.
    static func shortened(_ url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // "https:", "", "host", "rest of the path"
        guard parts.count == 4, parts[0].hasSuffix(":"), parts[1].isEmpty, !parts[3].isEmpty else { return url }
        return "\(parts[0])//\(parts[2])/…\(parts[3].suffix(4))"
    }
}

/// The requests to one check.
struct Pinger: Sendable {
    let target: PingTarget
    let timeout: Duration
    let transport: CurlTransport

    var shown: String {
        switch target {
        case let .url(url): UplinkClient.shortened(url.hasSuffix("/") ? String(url.dropLast()) : url)
        case let .managed(role, checks): checks.shown(role)
        }
    }

    /// Where the pings go now, and the uuid when the device owns the check.
    private func base() async -> Result<(url: String, uuid: String?), UplinkFailure> {
        switch target {
        case let .url(url):
            return .success((url.hasSuffix("/") ? String(url.dropLast()) : url, nil))
        case let .managed(role, checks):
            return await checks.resolve(role).map { ($0.pingURL, $0.uuid) }
        }
    }

    /// `POST <ping URL><suffix>` with `body`.
    func ping(_ suffix: String, body: String) async -> Result<Void, UplinkFailure> {
        switch await base() {
        case let .success(base): await post(base.url + suffix, shownAs: shown + suffix, body: body)
        case let .failure(failure): .failure(failure)
        }
    }

    /// A help alert as a `fail` signal, exactly once where the device can tell: the alert's id
    /// goes along as the run id (`?rid=`), and a check the device owns is first asked whether it
    /// already got that alert (a reply lost, a restart during delivery). A check already down from
    /// an earlier alert would not notify again on another `fail`: the device's own check is paused
    /// first (silently); a hand-made one gets a success ping first, which notifies "up" before the
    /// "down" (docs/healthchecks.md, "The help-alert check").
    func sendAlert(_ alert: AlertRecord) async -> Result<Void, UplinkFailure> {
        let resolved: (url: String, uuid: String?)
        switch await base() {
        case let .success(base): resolved = base
        case let .failure(failure): return .failure(failure)
        }
        let rid = "?rid=\(alert.id)"
        if case let .managed(_, checks) = target, let uuid = resolved.uuid {
            switch await checks.pings(uuid: uuid) {
            case let .success(pings) where pings.contains(where: { $0.type == "fail" && $0.rid == alert.id.description }):
                return .success(())
            case .success:
                break
            case let .failure(failure):
                return .failure(failure)
            }
            switch await checks.status(uuid: uuid) {
            case .success("down"):
                if case let .failure(failure) = await checks.pause(uuid: uuid) { return .failure(failure) }
            case .success:
                break
            case let .failure(failure):
                return .failure(failure)
            }
        } else {
            let rearm = await post(resolved.url, shownAs: shown, body: "LifeSignal: re-arming this help-alert check for the alert "
                + "that follows (not a check-in)\n")
            if case let .failure(failure) = rearm { return .failure(failure) }
        }
        return await post(resolved.url + "/fail" + rid, shownAs: shown + "/fail", body: UplinkClient.alertBody(alert))
    }

    private func post(_ url: String, shownAs: String, body: String) async -> Result<Void, UplinkFailure> {
        let request = HTTPRequest(method: .post, url: url, headers: ["Content-Type: text/plain; charset=utf-8"],
                                  body: Array(body.utf8), timeout: timeout)
        return await transport.perform(request)
            .mapError { UplinkClient.failure($0, request: "POST \(shownAs)") }
            .flatMap { response in
                guard (200..<300).contains(response.status) else {
                    var failure = UplinkClient.failure(response, request: "POST \(shownAs)")
                    if response.status == 404, case let .managed(role, checks) = target {
                        // The device's own check was deleted on the server: made again at the next attempt.
                        checks.forget(role)
                        failure.kind = .transient
                        failure.message += " (the check was deleted on the server; the device makes it again)"
                    } else if response.status == 404 {
                        failure.message += " (no such check: compare the ping URL in [healthchecks] with the check's page)"
                    }
                    return .failure(failure)
                }
                return .success(())
            }
    }
}
