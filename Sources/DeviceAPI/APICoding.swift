import JSONCoding

/// JSON both ways for the device API. Decoding failures become a short readable reason.
public enum APICoding {
    public static func encode<T: Encodable>(_ value: T) -> [UInt8] {
        // These plain structs always encode; an empty object is still valid JSON if one did not.
        (try? JSON.encode(value)) ?? Array("{}".utf8)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) -> Result<T, APIDecodingError> {
        do {
            return .success(try JSON.decode(type, from: bytes))
        } catch {
            return .failure(APIDecodingError(JSON.readableReason(error)))
        }
    }
}

public struct APIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
