import CheckInModels
import JSONCoding

/// One JSON object per line, both ways. Decoding never traps: malformed input is an error value.
public enum ControlCoding {
    public static func encode<T: Encodable>(_ value: T, pretty: Bool = false) -> String {
        // Encoding these plain structs cannot fail; an empty object is still a valid line if it did.
        guard let bytes = try? JSON.encode(value, format: JSONFormat(sortedKeys: true, pretty: pretty)) else { return "{}" }
        return String(decoding: bytes, as: UTF8.self)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from line: String) -> Result<T, ControlProtocolError> {
        do {
            return .success(try JSON.decode(type, from: line.utf8))
        } catch let DecodingError.dataCorrupted(context) where context.codingPath.isEmpty {
            return .failure(ControlProtocolError("not valid JSON: \(context.debugDescription)"))
        } catch let DecodingError.dataCorrupted(context) {
            // Valid JSON with a value that is not allowed (an unknown command, say).
            return .failure(ControlProtocolError("invalid value at \(place(context.codingPath)): \(context.debugDescription)"))
        } catch let DecodingError.keyNotFound(key, _) {
            return .failure(ControlProtocolError("missing field '\(key.stringValue)'"))
        } catch let DecodingError.typeMismatch(_, context) {
            return .failure(ControlProtocolError("wrong type at \(place(context.codingPath))"))
        } catch let DecodingError.valueNotFound(_, context) {
            return .failure(ControlProtocolError("missing value at \(place(context.codingPath))"))
        } catch {
            return .failure(ControlProtocolError("unreadable message: \(error)"))
        }
    }
}

/// Where in the message a problem is, for people: `'status.leds.0'`, or the message itself.
private func place(_ path: [any CodingKey]) -> String {
    path.isEmpty ? "the top level (a message is one JSON object)" : "'\(path.map(\.stringValue).joined(separator: "."))'"
}

public struct ControlProtocolError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    /// Control characters in `message` (from a request's values, or the decoder quoting them) are
    /// escaped: the message may end up on a terminal.
    public init(_ message: String) { self.message = TerminalText.escaped(message) }
    public var description: String { message }
}
