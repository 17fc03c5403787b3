import CheckInModels
import DeviceAPI
public import RespondersClient
import UplinkClient

extension RespondersClient {
    /// Everyone the LifeSignal backend tells about this device (docs/device-api.yaml,
    /// `GET /v1/responders`), over HTTP(S) with libcurl, with the device's own bearer token.
    ///
    /// A reply is read strictly where a wrong reading could mislead: the same id twice, a channel
    /// that is not a kind of channel (an address, a number) or too many responders is a failure
    /// naming the route and what was wrong. A topic this device does not know is left out (never
    /// read as another); a kind it does not know is shown as the backend wrote it.
    ///
    /// - Parameters:
    ///   - baseURL: the backend, e.g. `https://api.example.org` (the device's `[uplink] url`).
    ///   - token: the device's bearer token (`[uplink] token_file`); it goes into the Authorization
    ///     header and nowhere else.
    ///   - timeout: bound on the whole request, connecting included (`[uplink] timeout`).
    ///   - transport: where the request runs.
    public static func backend(baseURL: String, token: DeviceToken, timeout: Duration, transport: CurlTransport) -> RespondersClient {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let url = base + DeviceAPIPath.responders
        return RespondersClient(kind: "backend", endpoint: base, fetch: {
            let request = HTTPRequest(method: .get, url: url, headers: [token.authorizationHeader, "Accept: application/json"],
                                      timeout: timeout)
            let shown = "GET \(url)"
            return await transport.perform(request)
                .mapError { UplinkClient.failure($0, request: shown) }
                .flatMap { response in
                    UplinkClient.decodeSuccess(ResponderList.self, response, request: shown)
                        .mapError { failure in
                            guard response.status == 401 else { return failure }
                            var failure = failure
                            failure.message += " (the backend does not know the device's token: compare [uplink] token_file with "
                                + "the token the backend issued for this device)"
                            return failure
                        }
                        .flatMap { list in sourced(list, request: shown, status: response.status) }
                }
        })
    }

    /// The most responders a source may list: more is a reply gone wrong, not a family.
    public static let mostResponders = 500

    static func sourced(_ list: ResponderList, request: String, status: Int) -> Result<[SourcedResponder], UplinkFailure> {
        func refuse(_ what: String) -> Result<[SourcedResponder], UplinkFailure> {
            .failure(UplinkFailure(.permanent, "\(request) answered \(status) with \(what)", httpStatus: status))
        }
        guard list.responders.count <= mostResponders else {
            return refuse("\(list.responders.count) responders; the device shows at most \(mostResponders)")
        }
        var seen: Set<String> = []
        var responders: [SourcedResponder] = []
        for wire in list.responders {
            guard !wire.id.isEmpty else { return refuse("a responder without an id (\"id\": \"\")") }
            guard seen.insert(wire.id).inserted else {
                return refuse("responder '\(wire.id)' twice; the device API lists each once")
            }
            var channels: [String] = []
            for (index, channel) in wire.channels.enumerated() {
                // Not echoed: it may be the very address or number that must not show.
                guard let word = WireResponder.channelKind(channel) else {
                    return refuse("responder '\(wire.id)' whose channels[\(index)] is not a kind of channel (app, sms, email, ...): "
                        + "the API carries kinds, never an address or a number")
                }
                channels.append(word)
            }
            responders.append(SourcedResponder(
                id: wire.id, name: ResponderText.shown(wire.name.isEmpty ? wire.id : wire.name), kind: ResponderText.shown(wire.kind),
                channels: channels, told: Set(wire.notifiedOf.compactMap(ResponderTopic.init(rawValue:)))))
        }
        return .success(responders)
    }
}

/// A source's words as the device shows them.
enum ResponderText {
    /// One line of at most `limit` characters: control characters (a newline in a name) become
    /// spaces, and a longer text is cut with "…", so a name cannot break a status line.
    static func shown(_ text: String, limit: Int = 100) -> String {
        var line = String(text.map { $0.unicodeScalars.contains { $0.properties.generalCategory == .control } ? " " : $0 })
        if line.count > limit { line = String(line.prefix(limit - 1)) + "…" }
        return line
    }
}
