import CheckInModels
import ConfigFile

/// What a healthchecks ping URL must look like: `<base>/<uuid>` or `<base>/<ping-key>/<slug>`,
/// nothing after it. Everything else a person is likely to paste (the check's page in the web
/// interface, a URL with `/fail`, `/start`, `/log` or an exit status at the end, a query string)
/// is refused here, at config check, with the URL they probably meant: a `/fail` URL would mark
/// the person *not* OK at every press while the device said "up to date", and a web page URL
/// would be retried for ever.
///
/// The shapes are healthchecks' own routes (`hc/api/urls.py`): the uuid is lower-case hex, a ping
/// key and a slug are Django slugs (`[A-Za-z0-9_-]`), and a slug is lower-case.
enum PingURLShape {
    /// A refusal names what is wrong and, where one can be guessed, the URL meant.
    static func check(_ url: String, example: String) -> Result<String, Refusal> {
        let lower = url.lowercased()
        guard let scheme = ["https://", "http://"].first(where: { lower.hasPrefix($0) }) else {
            return .failure(Refusal("\"\(url)\" is not an http(s) URL; expected e.g. \"\(example)\""))
        }
        if url.contains(" ") {
            let joined = url.split(separator: " ").joined()
            return .failure(Refusal("\"\(url)\" contains a space, which no URL has; did you mean \"\(joined)\"?"))
        }
        let rest = url.dropFirst(scheme.count)
        let authority = String(rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" })
        guard !authority.isEmpty else {
            return .failure(Refusal("\"\(url)\" has no host; expected e.g. \"\(example)\""))
        }
        let origin = String(url.prefix(scheme.count)) + authority
        var path = String(rest.dropFirst(authority.count))
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            let meant = origin + path[..<cut]
            return .failure(Refusal("\"\(url)\" has a query string or fragment, which a ping URL never has; "
                                    + "did you mean \"\(meant)\"?"))
        }
        if path.hasSuffix("/") { path.removeLast() }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        if let refusal = webInterface(segments, origin: origin, host: authority.lowercased()) { return .failure(refusal) }
        if let last = segments.last, let refusal = signalSuffix(last, url: url, origin: origin, segments: segments) {
            return .failure(refusal)
        }
        guard let last = segments.last, !last.isEmpty else {
            return .failure(Refusal("\"\(url)\" has no check in its path; expected the check's ping URL, e.g. \"\(example)\""))
        }
        if isUUID(last.lowercased()) {
            guard last == last.lowercased() else {
                return .failure(Refusal("the check's uuid must be lower-case (healthchecks answers 404 otherwise); "
                                        + "did you mean \"\(origin + path.lowercased())\"?"))
            }
            return .success(url)
        }
        // <ping-key>/<slug>
        guard segments.count >= 2, isPingKey(segments[segments.count - 2]) else {
            return .failure(Refusal("\"\(url)\" does not end with a check's uuid (like 5b1c3e7a-0d6f-4b8e-9a51-2f4c8d7e6a10) "
                                    + "or with <ping-key>/<slug>; copy the ping URL from the check's page, e.g. \"\(example)\""))
        }
        guard isSlug(last.lowercased()) else {
            return .failure(Refusal("\"\(last)\" is not a check's slug (a-z, 0-9, - and _ only); copy the ping URL "
                                    + "from the check's page, e.g. \"\(example)\""))
        }
        guard last == last.lowercased() else {
            let meant = origin + segments.dropLast().map { "/" + $0 }.joined() + "/" + last.lowercased()
            return .failure(Refusal("slugs are lower-case (healthchecks answers 400 otherwise); did you mean \"\(meant)\"?"))
        }
        return .success(url)
    }

    /// `/checks/<uuid>/details/`, `/projects/<uuid>/checks/`, `/api/v3/checks/<uuid>`: pages and
    /// API addresses, not ping URLs.
    private static func webInterface(_ segments: [String], origin: String, host: String) -> Refusal? {
        let lowered = segments.map { $0.lowercased() }
        let page = lowered.indices.first { index in
            index + 1 < lowered.count && ["checks", "projects"].contains(lowered[index]) && isUUID(lowered[index + 1])
        }
        let api = lowered.indices.first { index in
            index + 1 < lowered.count && lowered[index] == "api" && ["v1", "v2", "v3"].contains(lowered[index + 1])
        }
        guard let start = [page, api].compactMap({ $0 }).min() else { return nil }
        let shown = origin + segments.map { "/" + $0 }.joined()
        guard lowered[start] != "projects", let uuid = lowered[start...].first(where: isUUID) else {
            return Refusal("\"\(shown)\" is a page of the web interface, not a check's ping URL; open the check and copy "
                           + "the URL under \"How to ping\"")
        }
        // healthchecks.io serves pings from hc-ping.com; a self-hosted instance from <site>/ping/.
        let site = origin + segments[..<start].map { "/" + $0 }.joined()
        let pingBase = host == "healthchecks.io" || host == "www.healthchecks.io" ? "https://hc-ping.com" : site + "/ping"
        let what = start == api ? "the management API's address of a check" : "the check's page in the web interface"
        return Refusal("\"\(shown)\" is \(what), not its ping URL; did you mean \"\(pingBase)/\(uuid)\"?")
    }

    /// `/fail`, `/start`, `/log` and `/<exit status>` signal something other than "checked in".
    private static func signalSuffix(_ last: String, url: String, origin: String, segments: [String]) -> Refusal? {
        let meaning: String
        switch last.lowercased() {
        case "fail": meaning = "would mark the check DOWN (the person not OK) at every check-in"
        case "start": meaning = "only says a job started: the check would never be marked up"
        case "log": meaning = "only adds to the check's log: the check would never be marked up"
        default:
            guard !last.isEmpty, last.count <= 3, last.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
            meaning = "is an exit status (anything but 0 marks the check DOWN)"
        }
        let meant = origin + segments.dropLast().map { "/" + $0 }.joined()
        return Refusal("\"\(url)\" ends with /\(last), which \(meaning); the device adds what it needs itself: "
                       + "did you mean \"\(meant)\"?")
    }

    /// A uuid as healthchecks routes it: 8-4-4-4-12 lower-case hex (`CheckInID`'s own form).
    static func isUUID(_ text: String) -> Bool {
        CheckInID(text)?.description == text
    }

    /// A project's ping key: healthchecks makes them 22 characters of base64url; shorter ones are
    /// almost certainly a path segment such as `ping`.
    static func isPingKey(_ text: String) -> Bool {
        (16...64).contains(text.count) && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    static func isSlug(_ text: String) -> Bool {
        !text.isEmpty && text.count <= 100 && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }
}
