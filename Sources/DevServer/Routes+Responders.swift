import CheckInModels
import DeviceAPI

/// The responders part of the device API and its admin side: who the backend tells about a
/// device. Its watchers (devices that follow it) are told through their own device; the contacts
/// the family added through the channels they were given. Both are told of a missed check-in and
/// of a help alert unless a contact says otherwise.
extension Routes {
    /// `GET /v1/responders`: the watchers first, in the order they started following, then the
    /// contacts in the order they were added.
    func responderList(device: String) -> ServerResponse {
        let everything = ResponderTopic.allCases.map(\.rawValue)
        do {
            let watchers = try store.watchers(of: device).map { watcher in
                WireResponder(id: watcher, name: names[watcher] ?? watcher, kind: "watcher", channels: ["device"],
                              notifiedOf: everything)
            }
            return .json(ResponderList(responders: watchers + (try store.contacts(of: device))))
        } catch {
            return .error(500, "could not read the responders: \(error)")
        }
    }

    /// `PUT /admin/contacts?device=ID&id=CONTACT` with a `ResponderContact`, and `DELETE` with the
    /// same query (idempotent).
    func adminContacts(_ request: ServerRequest) -> ServerResponse {
        guard let device = request.query["device"], !device.isEmpty, let id = request.query["id"], !id.isEmpty else {
            return .error(400, "give ?device=<device id>&id=<contact id>")
        }
        switch request.method {
        case "PUT":
            let contact: ResponderContact
            switch APICoding.decode(ResponderContact.self, from: request.body) {
            case let .success(decoded): contact = decoded
            case let .failure(problem):
                return .error(400, "the body is not a contact ({\"name\": \"Anna\", \"channels\": [\"sms\"], "
                    + "\"notifiedOf\": [\"help_alert\"]}): \(problem.message)")
            }
            do {
                return try saveContact(contact, id: id, device: device).map { .error(400, $0) } ?? .json(contact)
            } catch {
                return .error(500, "could not store the contact: \(error)")
            }
        case "DELETE":
            do {
                try store.removeContact(id: id, device: device)
                return ServerResponse(status: 204)
            } catch {
                return .error(500, "could not remove the contact: \(error)")
            }
        default:
            return .error(405, "\(request.method) is not allowed on \(request.path)", headers: [("Allow", "PUT, DELETE")])
        }
    }

    /// Stores the contact, or says what is wrong with it (nothing stored).
    func saveContact(_ contact: ResponderContact, id: String, device: String) throws -> String? {
        if let problem = Self.problem(with: contact, id: id) { return problem }
        guard !knownDevices.contains(id) else { return "'\(id)' is a device's id: a contact needs an id of its own" }
        let notifiedOf = contact.notifiedOf ?? ResponderTopic.allCases.map(\.rawValue)
        try store.saveContact(contact, notifiedOf: notifiedOf, id: id, device: device)
        return nil
    }

    static func problem(with contact: ResponderContact, id: String) -> String? {
        guard id.count <= 100, !id.contains(where: \.isNewline) else { return "id must be 1…100 characters on one line" }
        guard !contact.name.isEmpty, contact.name.count <= 100, !contact.name.contains(where: \.isNewline) else {
            return "name must be 1…100 characters on one line"
        }
        // Kinds of channel as the API writes them (lower-case words), never an address.
        guard !contact.channels.isEmpty, contact.channels.allSatisfy({ WireResponder.channelKind($0) == $0 }) else {
            return "channels must be one or more kinds of channel (app, sms, email, call: lower-case words), never an address"
        }
        if let topics = contact.notifiedOf {
            let known = ResponderTopic.allCases.map(\.rawValue)
            guard !topics.isEmpty, topics.allSatisfy(known.contains) else {
                return "notifiedOf must name one or more of \(known.joined(separator: ", ")) (absent: both)"
            }
        }
        return nil
    }
}
