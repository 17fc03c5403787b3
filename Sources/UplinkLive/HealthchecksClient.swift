public import CheckInModels
public import UplinkClient

extension UplinkClient {
    /// Pings to one healthchecks.io-compatible check (docs/healthchecks.md): `uploadBatch` pings
    /// once per check-in, oldest first, with the press time and id in the body; `sendHeartbeat`
    /// pings with the uptime and queue depth. A ping counts only when the check answered 2xx.
    ///
    /// - Parameters:
    ///   - url: the check's ping URL, `<base>/<uuid>` or `<base>/<ping-key>/<slug>`. It is a secret
    ///     (anyone who has it can ping), so logs and status show it shortened.
    ///   - lateAfter: a check-in pressed longer ago than this goes to `<url>/log` instead: recorded
    ///     by the check without marking it up, so a backlog sent after an outage cannot make an
    ///     overdue person look checked in. A press whose age is unknown (reboot, clock not
    ///     synchronised) counts as late.
    ///   - now: the device's clock, to tell how long ago a check-in was pressed.
    public static func healthchecks(
        url: String, timeout: Duration, lateAfter: Duration, now: @escaping @Sendable () -> DeviceInstant,
        transport: CurlTransport
    ) -> UplinkClient {
        let base = url.hasSuffix("/") ? String(url.dropLast()) : url
        let shown = shortened(base)
        @Sendable func ping(_ target: String, shownAs: String, body: String) async -> Result<Void, UplinkFailure> {
            let request = HTTPRequest(method: .post, url: target, headers: ["Content-Type: text/plain; charset=utf-8"],
                                      body: Array(body.utf8), timeout: timeout)
            return await transport.perform(request)
                .mapError { Self.failure($0, request: "POST \(shownAs)") }
                .flatMap { response in
                    (200..<300).contains(response.status) ? .success(()) : .failure(failure(response, request: "POST \(shownAs)"))
                }
        }
        return UplinkClient(
            endpoint: shown,
            uploadCheckIns: { _ in .failure(UplinkFailure(.permanent, "use uploadBatch for a healthchecks check")) },
            uploadBatch: { batch in
                var delivered: [CheckInID] = []
                for record in batch {
                    let late = isLate(record, now: now(), after: lateAfter)
                    let result = await ping(late ? base + "/log" : base, shownAs: late ? shown + "/log" : shown,
                                            body: pingBody(record, late: late))
                    if case let .failure(failure) = result {
                        // What went through stays delivered; the failure comes back with the next batch.
                        return delivered.isEmpty ? .failure(failure) : .success(UploadOutcome(acknowledged: delivered))
                    }
                    delivered.append(record.id)
                }
                return .success(UploadOutcome(acknowledged: delivered))
            },
            sendHeartbeat: { heartbeat in
                await ping(base, shownAs: shown, body: "LifeSignal device heartbeat\nboot: \(heartbeat.bootID)\n"
                    + "uptime: \(DurationText.format(heartbeat.uptime))\nqueued check-ins: \(heartbeat.queueDepth)\n")
            }
        )
    }

    /// Whether a check-in's ping would arrive too long after the press to count as a fresh one.
    static func isLate(_ record: CheckInRecord, now: DeviceInstant, after limit: Duration) -> Bool {
        let elapsed = now.elapsedTime(since: record.at)
        return !elapsed.isKnown || elapsed.lowerBound > limit
    }

    /// The ping's body, shown in the check's event log.
    static func pingBody(_ record: CheckInRecord, late: Bool) -> String {
        var body = "LifeSignal check-in \(record.id)\n"
        body += "pressed: \(record.at.wall.iso8601)" + (record.at.wallClockSynchronized ? "\n" : " (clock not synchronised)\n")
        body += "source: \(record.source.rawValue)\n"
        if late { body += "delivered late (the device was offline): recorded, not counted as a fresh check-in\n" }
        return body
    }

    /// `https://hc-ping.com/…7f3a`: enough to tell checks apart, not enough to ping them.
    static func shortened(_ url: String) -> String {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        // "https:", "", "host", "rest of the path"
        guard parts.count == 4, parts[0].hasSuffix(":"), parts[1].isEmpty, !parts[3].isEmpty else { return url }
        return "\(parts[0])//\(parts[2])/…\(parts[3].suffix(4))"
    }
}
