extension JSON {
    /// A decoding failure as a short reason for people: which field is missing or of the wrong
    /// type, or why the text is not JSON. The device API and peers' MQTT state share it.
    public static func readableReason(_ error: any Error) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map(\.stringValue).joined(separator: ".")
        }
        switch error {
        case let DecodingError.keyNotFound(key, _): return "missing field '\(key.stringValue)'"
        case let DecodingError.typeMismatch(_, context): return "wrong type at '\(path(context))'"
        case let DecodingError.valueNotFound(_, context): return "missing value at '\(path(context))'"
        case let DecodingError.dataCorrupted(context): return "not valid JSON (\(context.debugDescription))"
        default: return "unreadable JSON (\(error))"
        }
    }
}
