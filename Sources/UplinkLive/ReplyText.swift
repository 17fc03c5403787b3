import CheckInModels

/// What a person can act on from a reply body that is not the API's JSON: the page's title (a
/// proxy's 502, a web interface's 404), or the first line of plain text (healthchecks' `not
/// found`), never raw markup. One line, at most `limit` characters.
enum ReplyText {
    static let limit = 160

    static func readable(_ body: [UInt8], contentType: String?) -> String {
        let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
        let lower = text.lowercased()
        let isHTML = contentType?.lowercased().includes("html") == true || lower.includes("<html") || lower.includes("<!doctype")
            || lower.hasPrefix("<")
        guard isHTML else {
            let line = text.split(whereSeparator: \.isNewline).lazy.map { String($0).trimmed() }.first { !$0.isEmpty } ?? ""
            return shortened(line)
        }
        for tag in ["title", "h1"] {
            if let inner = element(tag, in: text), !inner.isEmpty { return "an HTML page titled \"\(shortened(inner))\"" }
        }
        return "an HTML page without a title"
    }

    /// The text inside the first `<tag …>…</tag>`, its markup removed and its spaces folded.
    private static func element(_ tag: String, in text: String) -> String? {
        let characters = Array(text)
        // ASCII-only lower-casing keeps the indices of `characters`.
        let lower = characters.map { $0.isASCII ? Character($0.lowercased()) : $0 }
        func find(_ needle: String, from start: Int) -> Int? {
            let pattern = Array(needle)
            guard pattern.count <= lower.count else { return nil }
            var index = start
            while index + pattern.count <= lower.count {
                if Array(lower[index..<index + pattern.count]) == pattern { return index }
                index += 1
            }
            return nil
        }
        guard let open = find("<\(tag)", from: 0), let openEnd = lower[open...].firstIndex(of: ">"),
              let close = find("</\(tag)", from: openEnd) else { return nil }
        var plain = ""
        var inTag = false
        for character in characters[(openEnd + 1)..<close] {
            if character == "<" { inTag = true } else if character == ">" { inTag = false } else if !inTag { plain.append(character) }
        }
        let decoded = plain.replacingEntities()
        return decoded.split(whereSeparator: { $0 == " " || $0.isNewline || $0 == "\t" }).joined(separator: " ")
    }

    private static func shortened(_ text: String) -> String {
        let clean = String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return clean.count <= limit ? clean : String(clean.prefix(limit - 1)) + "…"
    }
}

extension String {
    fileprivate func trimmed() -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        return String(String(drop(while: blank).reversed()).drop(while: blank).reversed())
    }

    /// The five entities a title is likely to carry.
    fileprivate func replacingEntities() -> String {
        var text = self
        for (entity, character) in [("&lt;", "<"), ("&gt;", ">"), ("&quot;", "\""), ("&#39;", "'"), ("&amp;", "&")] {
            text = text.replacingEvery(entity, with: character)
        }
        return text
    }
}
