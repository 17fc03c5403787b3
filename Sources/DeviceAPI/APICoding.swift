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
        } catch let DecodingError.keyNotFound(key, _) {
            return .failure(APIDecodingError("missing field '\(key.stringValue)'"))
        } catch let DecodingError.typeMismatch(_, context) {
            return .failure(APIDecodingError("wrong type at '\(path(context))'"))
        } catch let DecodingError.valueNotFound(_, context) {
            return .failure(APIDecodingError("missing value at '\(path(context))'"))
        } catch let DecodingError.dataCorrupted(context) {
            return .failure(APIDecodingError("not valid JSON (\(context.debugDescription))"))
        } catch {
            return .failure(APIDecodingError("unreadable JSON (\(error))"))
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }
}

public struct APIDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
