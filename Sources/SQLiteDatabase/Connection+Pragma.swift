extension Connection {
    /// Reads a pragma (`PRAGMA name`), returning its first value as text, or nil if it returns no row.
    public func pragma(_ name: String) throws(SQLiteError) -> String? {
        try pragmaValues("PRAGMA \(validated(name))").first
    }

    /// Sets a pragma (`PRAGMA name = value`) and returns what SQLite answered, if anything.
    ///
    /// Some pragmas answer with the value now in force (`journal_mode`); for the others read the
    /// value back with `pragma(_:)`, since SQLite ignores settings it cannot apply without an error.
    @discardableResult
    public func pragma(_ name: String, set value: String) throws(SQLiteError) -> String? {
        try pragmaValues("PRAGMA \(validated(name)) = \(validated(value))").first
    }

    /// Every row's first value, for pragmas that answer with a list (`integrity_check`).
    public func pragmaRows(_ name: String) throws(SQLiteError) -> [String] {
        try pragmaValues("PRAGMA \(validated(name))")
    }

    private func pragmaValues(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var values: [String] = []
        while try statement.step() {
            values.append(statement.unsafeText(at: 0))
        }
        return values
    }

    /// Pragma names and values cannot be bound as parameters; allow only plain words and numbers
    /// (and `schema.name`) so nothing else can be spliced into the SQL.
    private func validated(_ word: String) throws(SQLiteError) -> String {
        let allowed = !word.isEmpty && word.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "_.-".contains($0)) }
        guard allowed else {
            throw SQLiteError(operation: "pragma", path: path, code: .misuse,
                              message: "'\(word)' is not a plain pragma name or value")
        }
        return word
    }
}
