import CheckInModels
import ControlProtocol
import Glibc

/// Human-readable text for the CLI: relative times ("in 3 h 12 min") and local clock times.
enum Formatting {
    static func relative(seconds: Int64) -> String {
        let text = DurationText.humane(.seconds(abs(seconds)))
        return seconds >= 0 ? "in \(text)" : "\(text) ago"
    }

    /// An ISO 8601 UTC time as local time, e.g. "Sun 22 Nov 21:55".
    static func localTime(_ iso: String) -> String {
        guard let wall = WallTime(iso8601: iso) else { return iso }
        var seconds = time_t(wall.microsecondsSinceEpoch / 1_000_000)
        var parts = tm()
        localtime_r(&seconds, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a %d %b %H:%M", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static let phaseTitles: [String: String] = [
        "starting": "Starting",
        "never_checked_in": "Never checked in: press the button to check in",
        "checked_in": "Checked in",
        "reminder": "Reminder: check in soon",
        "last_chance": "LAST CHANCE: the deadline has passed; press now before anyone is told",
        "overdue": "OVERDUE: check in now",
        "away": "Away",
    ]

    static func status(_ status: StatusReport) -> String {
        var lines: [String] = []
        var headline = phaseTitles[status.phase] ?? status.phase
        if status.role == "watcher", let dependents = status.dependents {
            // A watcher has no countdown of its own: its headline is the glance.
            headline = "Watcher \(dependents.watcher): " + (dependents.loudest.map { "the loudest is \($0)" } ?? "nobody to watch yet")
        } else if let seconds = status.secondsLeft, let deadline = status.deadline {
            headline += seconds > 0
                ? " · deadline \(relative(seconds: seconds)) (\(localTime(deadline)))"
                : " · deadline was \(relative(seconds: seconds)) (\(localTime(deadline)))"
        }
        lines.append(headline)
        if let conditions = status.conditions {
            for condition in conditions {
                lines.append("\(condition.fault ? "FAULT" : "Problem"): \(condition.message)")
                lines.append("  what to do: \(condition.advice)")
            }
        } else if let error = status.error {
            lines.append("Problem: \(error)")
        }
        for message in status.messages ?? [] {
            lines.append("Note: \(message) (lifesignalctl dismiss-error clears it)")
        }
        if let last = status.lastCheckIn {
            lines.append("Last check-in: \(localTime(last.time)) via \(last.source)"
                         + (last.wallClockSynchronized ? "" : " (clock was not synchronised)"))
        }
        lines.append("Interval \(status.settings.interval), reminder \(status.settings.reminder) before the deadline")
        lines.append("LEDs: " + status.leds.map { "\($0.name) \($0.on ? "on" : "off")" }.joined(separator: ", ")
                     + " (showing \(status.indicator.replacingUnderscores()))")
        lines.append(contentsOf: targets(status))
        if let alert = status.alert { lines.append(contentsOf: Self.alert(alert)) }
        lines.append(contentsOf: dailyLife(status))
        if let pings = status.pings, !pings.pending.isEmpty { lines.append(pendingPings(pings)) }
        if let helpComing = status.helpComing { lines.append("\(helpComing) is on the way (said \"I'm on it\")") }
        if let reach = status.reach { lines.append("Who is told: \(reach) (lifesignalctl responders)") }
        if let dependents = status.dependents {
            let counts = Dictionary(grouping: dependents.dependents, by: \.status).mapValues(\.count)
            let words = counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
            lines.append("Watching \(dependents.dependents.count) (\(words.isEmpty ? "nobody yet" : words)): lifesignalctl dependents")
        }
        if let mqtt = status.mqtt { lines.append(contentsOf: Self.mqtt(mqtt)) }
        if !status.wallClockSynchronized { lines.append("Note: the wall clock is not synchronised (no NTP yet)") }
        return lines.joined(separator: "\n")
    }

    /// Who is told of the check-ins, target by target: the backend's upload queue, the
    /// healthchecks check-in check (with its heartbeat and the device's own checks), or that
    /// nobody is. "Queued" and "upload queue" appear only where there is something to upload to.
    static func targets(_ status: StatusReport) -> [String] {
        var lines: [String] = []
        let oldest = (status.oldestNotUploaded.map { ", the oldest since \(localTime($0))" } ?? "")
            + (status.uploadStale == true ? " (TOO LONG: the LEDs show it; is the device cut off?)" : "")
        if let backend = status.uplink {
            lines.append("Backend upload queue: \(count(status.queueDepth, "check-in")) waiting\(oldest)")
            lines.append(contentsOf: uplink(backend, name: "Backend"))
        }
        if let healthchecks = status.healthchecks {
            var check = uplink(healthchecks, name: "Healthchecks check-in check")
            if let depth = status.healthchecksQueueDepth {
                check[0] += depth == 0 ? " (every check-in pinged)" : " (\(count(depth, "check-in")) waiting for their ping)"
            } else {
                check[0] = "Healthchecks heartbeat check: \(healthchecks.endpoint)"
            }
            lines.append(contentsOf: check)
        }
        if let alertCheck = status.healthchecksAlert {
            lines.append(contentsOf: uplink(alertCheck, name: "Healthchecks alert check"))
        }
        if let checks = status.healthchecksChecks { lines.append(Self.checks(checks)) }
        if status.uplink == nil, status.healthchecks == nil || status.healthchecksQueueDepth == nil {
            lines.append("Nobody is told of a missed check-in: no healthchecks check-in check and no backend are configured "
                         + "(check-ins stay on the device; `lifesignalctl doctor` says how to set one up)")
        }
        return lines
    }

    /// The device's own healthchecks checks in one line.
    static func checks(_ report: ChecksReport) -> String {
        let states = [
            "idle": report.inStep ? "in step with the settings" : "not set up yet",
            "syncing": "being set up", "waiting_to_retry": "NOT in step yet, retrying", "refused": "NOT in step: refused",
        ]
        var line = "Healthchecks checks on \(report.site): \(states[report.state] ?? report.state)"
        if !report.checks.isEmpty {
            line += " (" + report.checks.map { check in
                "\(check.slug) \(check.status), timeout \(DurationText.humane(.seconds(check.timeoutSeconds))), "
                    + "grace \(DurationText.humane(.seconds(check.graceSeconds)))"
            }.joined(separator: "; ") + ")"
        }
        if let error = report.lastError, report.state != "idle" { line += "\n  last failure: \(error)" }
        return line
    }

    static func count(_ number: Int, _ noun: String) -> String { "\(number) \(noun)\(number == 1 ? "" : "s")" }

    static let uplinkStates: [String: String] = [
        "idle": "up to date",
        "uploading": "sending",
        "waiting_to_retry": "waiting to retry after a failure",
        "stopped": "STOPPED: refused; fix the cause, then restart or check in",
    ]

    /// One target's lines for `status` and `queue`.
    static func uplink(_ report: UplinkReport?, name: String = "Backend") -> [String] {
        guard let report else { return ["Backend: none configured (check-ins are not uploaded to a LifeSignal backend)"] }
        var lines = ["\(name): \(report.endpoint) · \(uplinkStates[report.state] ?? report.state)"]
        if let success = report.lastSuccess { lines.append("  last delivered: \(localTime(success))") }
        if let result = report.lastResult, result != "ok", let attempt = report.lastAttempt {
            lines.append("  last attempt \(localTime(attempt)) failed (\(result.replacingUnderscores()), "
                         + "\(report.consecutiveFailures) in a row): \(report.lastMessage ?? "no detail")")
        } else if let message = report.lastMessage {
            lines.append("  note: \(message)")
        }
        if let retry = report.nextRetry { lines.append("  next attempt: \(localTime(retry))") }
        if let heartbeat = report.heartbeat { lines.append(Self.heartbeat(heartbeat)) }
        return lines
    }

    /// The MQTT broker's lines for `status`.
    static func mqtt(_ report: MQTTReport) -> [String] {
        let state = switch report.state {
        case "connected": "connected" + (report.lastConnected.map { " since \(localTime($0))" } ?? "")
        case "waiting_to_retry": "NOT connected" + (report.nextRetry.map { ", next attempt \(localTime($0))" } ?? "")
        case "connecting": "connecting"
        default: report.state.replacingUnderscores()
        }
        var lines = ["MQTT: \(report.broker) · \(state) · device \(report.deviceID) on \(report.baseTopic)"]
        if let error = report.lastError, report.state != "connected" {
            lines.append("  last attempt failed (\(report.consecutiveFailures) in a row): \(error)")
        }
        lines.append("  events: \(report.eventsWaiting) waiting for the broker, \(report.eventsPublishedSinceStart) published since start")
        if report.commandsAccepted + report.commandsRefused > 0 {
            lines.append("  commands: \(report.commandsAccepted) carried out, \(report.commandsRefused) refused"
                         + (report.lastRefusal.map { " (last: \($0))" } ?? ""))
        }
        if let problem = report.subscriptionProblem { lines.append("  commands cannot arrive: \(problem)") }
        return lines
    }

    static func heartbeat(_ report: HeartbeatReport) -> String {
        var line = "  heartbeat every \(DurationText.humane(.seconds(report.periodSeconds))) to \(report.endpoint): "
        if let error = report.lastError {
            line += "last one failed (\(error))"
            if let success = report.lastSuccess { line += "; last delivered \(localTime(success))" }
        } else if let success = report.lastSuccess {
            line += "last delivered \(localTime(success))"
        } else {
            line += "none sent yet"
        }
        return line
    }

    static func refused(_ refused: [RefusedCheckInReport], count: Int, by target: String) -> [String] {
        guard count > 0 else { return [] }
        var lines = ["\(count) check-in\(count == 1 ? "" : "s") refused for good by \(target) (kept on the device, not resent):"]
        lines += refused.map { "  \(localTime($0.checkIn.time))  \($0.checkIn.id): \($0.message)" }
        if count > refused.count { lines.append("  … and \(count - refused.count) more") }
        return lines
    }

    static let alertStates: [String: String] = [
        "off": "off: a long press only shows its pattern",
        "idle": "none",
        "cancel_window": "REQUESTED: sent when the cancel window ends; press the button or `lifesignalctl alert cancel` to cancel",
        "storing": "storing",
        "sending": "SENDING: stored, not yet taken by the alert check or the backend",
        "not_sent": "stored but NOT sent",
        "delivered": "delivered: someone is being told",
    ]

    /// The help alert's lines for `status`.
    static func alert(_ report: AlertReport) -> [String] {
        var line = "Alert: \(alertStates[report.state] ?? report.state)"
        if let left = report.cancelWindowSecondsLeft { line += " (\(left) s left)" }
        var lines = [line]
        if report.waiting > 0 { lines.append("  \(count(report.waiting, "alert")) stored, not yet taken by anyone") }
        let targets = report.targets ?? (report.uplinkConfigured ? ["backend"] : [])
        if targets.isEmpty {
            lines[0] += report.state == "off" ? " (nothing can deliver a help alert)" : ""
            if report.state != "off" { lines.append("  nothing can deliver a help alert: an alert is stored but reaches nobody") }
        } else {
            let names = targets.map { $0 == "healthchecks" ? "the healthchecks alert check" : "the backend" }
            lines.append("  a help alert goes to \(names.joined(separator: " and "))")
        }
        if let uplink = report.uplink, let result = uplink.lastResult, result != "ok" {
            lines.append("  last attempt to the backend failed (\(result.replacingUnderscores())): \(uplink.lastMessage ?? "no detail")")
        }
        return lines
    }

    static func queue(_ queue: QueueReport) -> String {
        var lines: [String] = []
        // Older daemons do not say; they had a backend queue whenever they had an uplink report.
        if queue.hasBackend ?? (queue.uplink != nil) {
            lines.append("\(count(queue.depth, "check-in")) waiting for upload to the backend")
            if let oldest = queue.oldestPending { lines.append("Oldest: \(localTime(oldest.time)) (id \(oldest.id))") }
            lines.append(contentsOf: uplink(queue.uplink))
            lines.append(contentsOf: refused(queue.refused ?? [], count: queue.refusedCount ?? 0, by: "the backend"))
        }
        if let healthchecks = queue.healthchecks {
            lines.append("\(count(healthchecks.depth, "check-in")) waiting for their ping to the healthchecks check")
            if let state = healthchecks.state { lines.append(contentsOf: uplink(state, name: "Healthchecks check-in check")) }
            lines.append(contentsOf: refused(healthchecks.refused, count: healthchecks.refused.count, by: "the healthchecks check"))
        }
        if lines.isEmpty {
            lines.append("Nothing to upload to: no [uplink] and no healthchecks check-in check are configured; check-ins stay "
                         + "on the device (`lifesignalctl history`)")
        }
        return lines.joined(separator: "\n")
    }

    /// "Pinged by Alice (Sun 22 Nov 21:55), Bob (…): press the button to answer".
    static func pendingPings(_ pings: PingsReport) -> String {
        "Pinged by " + pings.pending.map { "\($0.responderName) (\(localTime($0.createdAt)))" }.joined(separator: ", ")
            + ": press the button (or check in) to answer"
    }

    static func pings(_ pings: PingsReport) -> String {
        var lines = [pings.pending.isEmpty ? "No pings waiting for an answer." : pendingPings(pings)]
        if pings.responsesWaiting > 0 {
            lines.append("\(pings.responsesWaiting) answer\(pings.responsesWaiting == 1 ? "" : "s") waiting for upload")
        }
        if let listener = pings.listener {
            lines.append("Listening for pings: \(listener.replacingUnderscores())"
                         + (pings.listenerMessage.map { " (last failure: \($0))" } ?? ""))
        } else {
            lines.append("Listening for pings: no uplink configured")
        }
        if let upload = pings.responseUpload, upload.lastResult != nil && upload.lastResult != "ok" {
            lines.append(contentsOf: uplink(upload, name: "Answers upload"))
        }
        return lines.joined(separator: "\n")
    }

    /// One history row: where it stands with each configured target (nothing without one).
    static func checkIn(_ report: CheckInReport) -> String {
        let names = ["backend": "backend", "healthchecks": "check"]
        let deliveries = (report.deliveries ?? []).map { delivery in
            "\(names[delivery.target] ?? delivery.target) \(delivery.state.replacingUnderscores())".padded(to: 16)
        }
        return ([localTime(report.time), report.source.padded(to: 6)] + deliveries + [report.id]).joined(separator: "  ")
    }

    static func settings(_ settings: SettingsReport) -> String {
        """
        Interval: \(settings.interval)  (offered: \(settings.offeredIntervals.joined(separator: ", ")))
        Reminder: \(settings.reminder) before the deadline  (offered: \(settings.offeredReminders.joined(separator: ", ")))
        """
    }
}

extension String {
    func replacingUnderscores() -> String { String(map { $0 == "_" ? " " : $0 }) }
    func padded(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}

extension Formatting {
    /// Away mode, the schedule, the power and the buzzer, as `status` shows them.
    static func dailyLife(_ status: StatusReport) -> [String] {
        var lines: [String] = []
        if let away = status.away, away.state != "off" { lines.append(Self.away(away)) }
        if let schedule = status.schedule {
            var line = schedule.kind == "daily" ? "Daily windows \(schedule.windows ?? "")" : "Rolling interval"
            if let zone = schedule.timeZone { line += " (\(zone))" }
            line += "; last chance \(DurationText.humane(.seconds(schedule.graceSeconds))) before overdue"
            if let quiet = schedule.quietHours { line += "; quiet hours \(quiet)\(schedule.quietNow == true ? " (now)" : "")" }
            lines.append(line)
        }
        if let power = status.power {
            if let mains = power.mains {
                lines.append(mains == "lost"
                    ? "ON BATTERY: the mains power is off" + (power.onBatterySince.map { " since \(localTime($0))" } ?? "")
                    : "Mains power: \(mains)")
            }
            if power.lowBattery { lines.append("BATTERY LOW: the device is stopping cleanly") }
            for event in power.events.suffix(3) { lines.append("Event: \(event.summary) (\(localTime(event.at)))") }
        }
        if let buzzer = status.buzzer {
            lines.append("Buzzer: " + (buzzer.signal.map { "sounding for \($0.replacingUnderscores())" } ?? "silent"))
        }
        return lines
    }

    static func away(_ away: AwayReport) -> String {
        guard away.state != "off", let until = away.until else { return "Not away." }
        return "Away until \(localTime(until))" + (away.secondsLeft.map { " (\(relative(seconds: $0)))" } ?? "")
            + (away.pressEnds ? "; a press ends it and checks in" : "; a press checks in and away mode goes on")
    }

    static func awayPeriod(_ period: AwayPeriodReport) -> String {
        let end: String
        switch period.endReason {
        case nil: end = "until \(localTime(period.until)) (now)"
        case "expired": end = "until \(localTime(period.until))"
        case "press": end = "ended by a press \(period.ended.map(localTime) ?? "")"
        case "cli": end = "ended with lifesignalctl \(period.ended.map(localTime) ?? "")"
        case "backend": end = "ended by the backend \(period.ended.map(localTime) ?? "")"
        default: end = "replaced \(period.ended.map(localTime) ?? "")"
        }
        return "\(localTime(period.since))  away, \(end)" + (period.source == "backend" ? " (set by the backend)" : "")
    }

    /// Check-ins and away periods, newest first.
    static func history(_ checkIns: [CheckInReport], away: [AwayPeriodReport]) -> String {
        var entries: [(time: String, line: String)] = checkIns.map { ($0.time, checkIn($0)) }
        entries += away.map { ($0.since, awayPeriod($0)) }
        return entries.sorted { (WallTime(iso8601: $0.time) ?? WallTime(secondsSinceEpoch: 0)) > (WallTime(iso8601: $1.time) ?? WallTime(secondsSinceEpoch: 0)) }
            .map(\.line).joined(separator: "\n")
    }
}
