public import CheckInModels

/// Who is told of a missed check-in and of a help alert, said in one line; or that nobody is.
/// Only people the device can name count: a path it cannot list (a healthchecks check without an
/// API key, a source that fails) is named as such, never counted as someone.
public struct Reach: Equatable, Sendable {
    /// "Anna (watcher device)", by topic.
    public var told: [ResponderTopic: [String]]
    /// Paths that may reach someone the device cannot name, by topic ("whoever the healthchecks
    /// check-in check notifies (not listed: ...)").
    public var unlisted: [ResponderTopic: [String]]
    /// Responders listed who cannot be told right now, and why (a broker that is not connected).
    public var notNow: [String]
    public var helpAlertsOff: Bool

    /// Nobody at all is told of a missed check-in: the device's first promise is not kept.
    public var nobodyForMissedCheckIns: Bool {
        (told[.missedCheckIn] ?? []).isEmpty && (unlisted[.missedCheckIn] ?? []).isEmpty
    }

    /// Help alerts are on and nobody at all is told of one.
    public var nobodyForHelpAlerts: Bool {
        !helpAlertsOff && (told[.helpAlert] ?? []).isEmpty && (unlisted[.helpAlert] ?? []).isEmpty
    }

    /// "the backend", "healthchecks": how lines name a polled source.
    static func sourceName(_ kind: String) -> String {
        kind == "backend" ? "the backend" : kind
    }

    init(_ state: RespondersFeature.State) {
        var told: [ResponderTopic: [String]] = [:], unlisted: [ResponderTopic: [String]] = [:], notNow: [String] = []
        let paths = state.paths
        for responder in state.responders {
            if case .watcher = responder.source, !state.brokerConnected {
                notNow.append("\(responder.name) (the MQTT broker is not connected)")
                continue
            }
            let shown = "\(responder.name) (\(Self.path(of: responder)))"
            for topic in responder.told.sorted() where topic != .helpAlert || paths.helpAlerts {
                told[topic, default: []].append(shown)
            }
        }
        for topic in paths.unlistedHealthchecks.sorted() where topic != .helpAlert || paths.helpAlerts {
            let check = topic == .missedCheckIn ? "check-in" : "alert"
            unlisted[topic, default: []].append("whoever the healthchecks \(check) check notifies (not listed: no [healthchecks] api_key_file)")
        }
        for kind in paths.polledKinds where !state.polled.contains(kind) {
            for topic in ResponderTopic.allCases where topic != .helpAlert || paths.helpAlerts {
                unlisted[topic, default: []].append("whoever \(Self.sourceName(kind)) tells (not asked yet)")
            }
        }
        for (kind, failure) in state.sourceFailures.sorted(by: { $0.key < $1.key }) {
            for topic in ResponderTopic.allCases where topic != .helpAlert || paths.helpAlerts {
                unlisted[topic, default: []].append("whoever \(Self.sourceName(kind)) tells (its list cannot be read now: \(failure))")
            }
        }
        self.told = told
        self.unlisted = unlisted
        self.notNow = notNow
        self.helpAlertsOff = !paths.helpAlerts
    }

    /// "watcher device over MQTT", "backend contact: app, sms", "healthchecks email".
    public static func path(of responder: Responder) -> String {
        switch responder.source {
        case .watcher: return "watcher device, over MQTT"
        case .backend:
            let what = responder.kind == "watcher" ? "watcher device" : responder.kind
            return "\(what) through the backend" + (responder.channels.isEmpty ? "" : ": " + responder.channels.joined(separator: ", "))
        case .healthchecks: return "healthchecks \(responder.kind)"
        }
    }

    /// The one line: who is told of a missed check-in; of a help alert.
    public var line: String {
        func names(_ topic: ResponderTopic) -> String? {
            let all = (told[topic] ?? []) + (unlisted[topic] ?? [])
            return all.isEmpty ? nil : all.joined(separator: "; ")
        }
        let missed = names(.missedCheckIn).map { "A missed check-in is told to: \($0)." }
            ?? "NOBODY is told of a missed check-in."
        let help: String
        if helpAlertsOff {
            help = "A help alert reaches nobody: help alerts are off ([alert] enabled = false)."
        } else {
            help = names(.helpAlert).map { "A help alert is told to: \($0)." } ?? "NOBODY is told of a help alert."
        }
        let later = notNow.isEmpty ? "" : " Not reachable now: " + notNow.joined(separator: "; ") + "."
        return missed + " " + help + later
    }
}
