import CheckInModels
public import DependentsClient
import DeviceAPI
import UplinkClient

extension DependentsClient {
    /// The dependents a watcher device follows on the LifeSignal backend (docs/device-api.yaml,
    /// `/v1/dependents`), over HTTP(S) with libcurl, with the watcher's own bearer token.
    ///
    /// - Parameters:
    ///   - baseURL: the backend, e.g. `https://api.example.org` (the device's `[uplink] url`).
    ///   - token: the watcher device's bearer token; it goes into the Authorization header and nowhere else.
    ///   - timeout: bound on each whole request, connecting included.
    ///   - transport: where the requests run (one at a time).
    public static func backend(baseURL: String, token: DeviceToken, timeout: Duration, transport: CurlTransport) -> DependentsClient {
        let base = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        let headers = [token.authorizationHeader, "Content-Type: application/json", "Accept: application/json"]
        @Sendable func exchange(_ method: HTTPRequest.Method, _ path: String, _ body: [UInt8] = [])
            async -> (request: String, result: Result<HTTPResponse, UplinkFailure>) {
            let request = HTTPRequest(method: method, url: base + path, headers: headers, body: body, timeout: timeout)
            let shown = "\(method.rawValue) \(request.url)"
            return (shown, await transport.perform(request).mapError { UplinkClient.failure($0, request: shown) })
        }
        /// Any 2xx: what the dependent's own routes answer when there is nothing more to say.
        @Sendable func succeeded(_ method: HTTPRequest.Method, _ path: String, _ body: [UInt8] = [], id: String)
            async -> Result<Void, UplinkFailure> {
            let (request, result) = await exchange(method, path, body)
            return result.flatMap { response in
                (200..<300).contains(response.status) ? .success(()) : .failure(dependentFailure(response, request: request, id: id))
            }
        }
        return DependentsClient(
            kind: "backend", endpoint: base,
            fetch: {
                let (request, result) = await exchange(.get, DeviceAPIPath.dependents)
                return result.flatMap { response in
                    decoded(DependentList.self, response, request: request).flatMap { list in
                        var dependents: [String: SourcedDependent] = [:]
                        for wire in list.dependents {
                            guard dependents[wire.id] == nil else {
                                return .failure(UplinkFailure(.permanent, "\(request) answered \(response.status) with dependent "
                                    + "'\(wire.id)' twice; the device API lists each once", httpStatus: response.status))
                            }
                            switch sourced(wire, request: request, status: response.status) {
                            case let .success(dependent): dependents[wire.id] = dependent
                            case let .failure(failure): return .failure(failure)
                            }
                        }
                        return .success(dependents)
                    }
                }
            },
            ping: { id in
                // 201 with the new ping, or 200 with this watcher's ping that still waits.
                let (request, result) = await exchange(.post, DeviceAPIPath.dependentPing(id))
                return result.flatMap { response in
                    guard (200..<300).contains(response.status) else {
                        return .failure(dependentFailure(response, request: request, id: id))
                    }
                    return decoded(Ping.self, response, request: request).map { _ in () }
                }
            },
            clearPing: { id in await succeeded(.delete, DeviceAPIPath.dependentPing(id), id: id) },
            onIt: { id, watcher in
                await succeeded(.post, DeviceAPIPath.dependentOnIt(id), APICoding.encode(OnItRequest(watcher: watcher)), id: id)
            },
            add: { id in
                let (request, result) = await exchange(.put, DeviceAPIPath.dependent(id))
                return result.flatMap { response in
                    guard (200..<300).contains(response.status) else {
                        return .failure(dependentFailure(response, request: request, id: id))
                    }
                    return decoded(WireDependent.self, response, request: request).flatMap {
                        sourced($0, request: request, status: response.status)
                    }
                }
            },
            remove: { id in await succeeded(.delete, DeviceAPIPath.dependent(id), id: id) })
    }

    /// A non-2xx reply to a dependent's route, with what 403 and 404 mean there.
    static func dependentFailure(_ response: HTTPResponse, request: String, id: String) -> UplinkFailure {
        var failure = UplinkClient.failure(response, request: request)
        switch response.status {
        case 403: failure.message += " (this watcher does not follow '\(id)' on the backend: add it again with its pairing code)"
        case 404: failure.message += " (the backend knows no device '\(id)': check the pairing code)"
        default: break
        }
        return failure
    }

    /// A 2xx reply as `T`; another status, or a body that is not `T`, is the failure it means.
    static func decoded<T: Decodable>(_ type: T.Type, _ response: HTTPResponse, request: String) -> Result<T, UplinkFailure> {
        UplinkClient.decodeSuccess(type, response, request: request)
    }

    /// A dependent on the wire as the watcher keeps it. A status or a time this device does not
    /// know is a failure naming it: never a default, so an unknown word cannot show as "OK".
    static func sourced(_ wire: WireDependent, request: String, status httpStatus: Int) -> Result<SourcedDependent, UplinkFailure> {
        func refuse(_ what: String) -> Result<SourcedDependent, UplinkFailure> {
            .failure(UplinkFailure(.permanent, "\(request) answered \(httpStatus) with dependent '\(wire.id)' \(what)",
                                   httpStatus: httpStatus))
        }
        guard let status = DependentStatus(rawValue: wire.status) else {
            return refuse("in status '\(wire.status)', which this device does not know (it knows "
                + DependentStatus.allCases.map(\.rawValue).joined(separator: ", ") + ")")
        }
        var times: [WallTime?] = []
        for (name, text) in [("lastCheckIn", wire.lastCheckIn), ("deadline", wire.deadline)] {
            guard let text else {
                times.append(nil)
                continue
            }
            guard let time = WallTime(iso8601: text) else { return refuse("with \(name) '\(text)', not RFC 3339 UTC") }
            times.append(time)
        }
        return .success(SourcedDependent(
            name: wire.name.flatMap { $0.isEmpty ? nil : $0 } ?? wire.id,
            report: DependentReport(status: status, lastCheckIn: times[0], deadline: times[1], pingPending: wire.pingPending,
                                    onIt: wire.onIt)))
    }
}
