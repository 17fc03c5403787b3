/// "Did you mean ...?" for unknown keys and tables: the closest candidate, if it is a likely typo.
enum Suggestion {
    /// The candidate at the smallest edit distance, when that distance is small for its length
    /// (1 for names up to 4 characters, else 2). Case and `-`/`_` differences count as nothing.
    static func closest(to word: String, among candidates: [String]) -> String? {
        let target = normalised(word)
        guard target.count <= 64 else { return nil }  // no quadratic work on absurd input
        var best: (candidate: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(target, normalised(candidate))
            let limit = candidate.count <= 4 ? 1 : 2
            if distance <= limit, distance < best?.distance ?? Int.max {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// "; did you mean 'x'?" or nothing.
    static func hint(for word: String, among candidates: [String]) -> String {
        closest(to: word, among: candidates).map { "; did you mean '\($0)'?" } ?? ""
    }

    private static func normalised(_ word: String) -> [Unicode.Scalar] {
        word.lowercased().unicodeScalars.map { $0 == "-" ? "_" : $0 }
    }

    /// Levenshtein distance with one row of memory.
    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous = Array(0...b.count)
        var row = previous
        for i in 1...a.count {
            row[0] = i
            for j in 1...b.count {
                let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
                row[j] = min(previous[j] + 1, row[j - 1] + 1, substitution)
            }
            swap(&previous, &row)
        }
        return previous[b.count]
    }
}
