import CheckInModels
import DeviceAPI
public import RespondersClient
import UplinkClient

extension RespondersClient {
    /// The integrations of the healthchecks project that the device's own checks notify
    /// (docs/healthchecks.md, "Who is told"), through the management API with the device's
    /// read-write key (`[healthchecks] api_key_file`): `GET /api/v3/channels/` names them (id,
    /// name, kind: healthchecks gives no address, number or URL there), and each check, read by
    /// its slug with that key, lists the ids of the integrations it notifies (`channels`). An
    /// integration notified by the check-in check is told of a missed check-in, one notified by the
    /// help-alert check of a help alert; one that neither notifies (the heartbeat check's only, or
    /// none) is not listed: it tells nobody about the person. healthchecks does not say whether an
    /// integration is disabled, nor what it does on a check going up: the device cannot show that.
    ///
    /// Made only with `[healthchecks] api_key_file` (there are `ManagedChecks` then): checks made
    /// by hand are pinged by URL and need no key, and with no key nothing can be read.
    public static func healthchecks(_ checks: ManagedChecks) -> RespondersClient {
        RespondersClient(kind: "healthchecks", endpoint: checks.shownSite, fetch: { await checks.responders() })
    }
}

extension ManagedChecks {
    /// Which check tells of what.
    static let told: [(CheckRole, ResponderTopic)] = [(.checkIn, .missedCheckIn), (.alert, .helpAlert)]

    func responders() async -> Result<[SourcedResponder], UplinkFailure> {
        let integrations: [HealthchecksChannel]
        switch await request(.get, HealthchecksPath.channels).flatMap({ decoded(HealthchecksChannelList.self, $0) }) {
        case let .success(list): integrations = list.channels
        case var .failure(failure):
            // healthchecks lists integrations to a read-write key only.
            if failure.httpStatus == 401 { failure.message += "; listing the project's integrations (who is told) needs it too" }
            return .failure(failure)
        }
        guard integrations.count <= RespondersClient.mostResponders else {
            return .failure(UplinkFailure(.permanent, "\(site) lists \(integrations.count) integrations; the device shows at most "
                + "\(RespondersClient.mostResponders)"))
        }
        var told: [String: Set<ResponderTopic>] = [:]
        var missing: [String] = []
        for (role, topic) in Self.told {
            let slug = slug(of: role)
            let check: HealthchecksCheck
            switch await find(slug: slug) {
            case let .success(found?): check = found
            case .success(nil):
                missing.append(slug)
                continue
            case let .failure(failure): return .failure(failure)
            }
            guard let channels = check.channels else {
                return .failure(UplinkFailure(.permanent, "\(site) does not show which integrations the check \(slug) notifies: "
                    + "[healthchecks] api_key_file holds a read-only key; the device needs a read-write one"))
            }
            for id in channels.split(separator: ",") { told[String(id), default: []].insert(topic) }
        }
        guard missing.isEmpty else {
            return .failure(UplinkFailure(.transient, "the device's checks \(missing.joined(separator: " and ")) are not on \(site) "
                + "yet, so who they tell is not known; the device makes them when its settings are known"))
        }
        var seen: Set<String> = []
        var responders: [SourcedResponder] = []
        for integration in integrations {
            guard seen.insert(integration.id).inserted else {
                return .failure(UplinkFailure(.permanent, "\(site) lists integration \(integration.id) twice"))
            }
            guard let topics = told[integration.id], !topics.isEmpty else { continue }
            guard let kind = WireResponder.channelKind(integration.kind) else {
                return .failure(UplinkFailure(.permanent, "\(site) lists integration \(integration.id) with a kind that is not a "
                    + "word (email, sms, ...); is [healthchecks] api_url the healthchecks site?"))
            }
            // Integrations are often left unnamed: then they go by their kind.
            let name = integration.name.allSatisfy(\.isWhitespace) ? kind : ResponderText.shown(integration.name)
            responders.append(SourcedResponder(id: integration.id, name: name, kind: kind, channels: [kind], told: topics))
        }
        return .success(responders)
    }
}
