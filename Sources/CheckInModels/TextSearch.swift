/// Finding text in text with the standard library's core alone.
///
/// The modules the daemon links do without _StringProcessing (Package.swift, `noStringProcessing`),
/// which is where `String.contains(_ other: String)`, `ranges(of:)` and `split(separator: String)`
/// live. These compare UTF-8 bytes exactly, which is what every caller here means: protocol
/// words, markup, file contents, never text that needs Unicode equivalence.
extension StringProtocol {
    /// Whether `other` occurs in this text.
    public func includes(_ other: some StringProtocol) -> Bool {
        utf8Offset(of: other) != nil
    }

    /// The UTF-8 offset of the first occurrence of `other` at or after `start`.
    public func utf8Offset(of other: some StringProtocol, from start: Int = 0) -> Int? {
        let haystack = Array(utf8), needle = Array(other.utf8)
        guard !needle.isEmpty else { return start <= haystack.count ? start : nil }
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], haystack[index..<index + needle.count].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    /// The pieces between the occurrences of `separator` (empty pieces kept, like
    /// `split(separator:omittingEmptySubsequences: false)`).
    public func pieces(separatedBy separator: some StringProtocol) -> [String] {
        let bytes = Array(utf8), separatorBytes = Array(separator.utf8)
        guard !separatorBytes.isEmpty else { return [String(self)] }
        var pieces: [String] = [], start = 0, index = 0
        while index + separatorBytes.count <= bytes.count {
            if bytes[index..<index + separatorBytes.count].elementsEqual(separatorBytes) {
                pieces.append(String(decoding: bytes[start..<index], as: UTF8.self))
                index += separatorBytes.count
                start = index
            } else {
                index += 1
            }
        }
        pieces.append(String(decoding: bytes[start...], as: UTF8.self))
        return pieces
    }

    /// This text with every `target` replaced by `replacement`.
    public func replacingEvery(_ target: some StringProtocol, with replacement: some StringProtocol) -> String {
        pieces(separatedBy: target).joined(separator: String(replacement))
    }
}
