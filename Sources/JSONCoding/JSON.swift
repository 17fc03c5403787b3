/// `Codable` values to and from JSON with the standard library alone.
///
/// The daemon speaks JSON on its control socket and to its backend. Foundation's coder would link
/// FoundationEssentials into every binary for these few calls (megabytes of code on a board with
/// 512 MB for everything: BENCHMARKS.md, "Memory and size"); `Codable` itself is part of the
/// standard library, so a small encoder and decoder over `JSONValue` do the same job.
///
/// What it writes and reads matches Foundation's `JSONEncoder`/`JSONDecoder` for the project's types
/// (the tests hold them to each other): the same escapes, the same error cases (`DecodingError`
/// with the coding path), integers never read through `Double`.
public enum JSON {
    public static func encode<T: Encodable>(_ value: T, format: JSONFormat = JSONFormat()) throws -> [UInt8] {
        JSONWriter.write(try encodeValue(value), format: format)
    }

    public static func encodeValue<T: Encodable>(_ value: T) throws -> JSONValue {
        let box = EncodingBox()
        try value.encode(to: ValueEncoder(box: box, codingPath: []))
        return box.finished()
    }

    /// Reads `bytes` as one JSON document into a `T`. Text that is not JSON is a
    /// `DecodingError.dataCorrupted` with an empty coding path; everything else names its path.
    public static func decode<T: Decodable>(_ type: T.Type, from bytes: some Collection<UInt8>) throws -> T {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON: \(error)", underlyingError: error))
        }
        return try decode(type, from: value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: ValueDecoder(value: value, codingPath: []))
    }
}

/// A coding key for array positions and for `super`.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    static let `super` = JSONKey(stringValue: "super")
}
